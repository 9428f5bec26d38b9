import {
  AppError,
  CreateDatasetImportRequest,
  CreateImportFields,
  ErrorCode,
  type ImportJob,
  ImportListQuery,
  NUL_MESSAGE,
  parseOrThrow,
} from '@tm/contracts';
import { type RequestHandler, Router } from 'express';
import type { TemplateClient } from '../../../clients/template-client.js';
import { uploadImportFile } from '../../../domain/data-plane/upload-import-file.js';
import { type AuthDeps, requireApiKey, scopeOf } from '../middleware/authenticate.js';
import { jsonBody } from '../middleware/json-body.js';
import { noteForRecord } from '../middleware/record-requests.js';
import { uuidRef } from '../path-params.js';
import { type IncomingFile, receiveMultipartUpload, type UploadLimits } from '../receive-multipart-upload.js';

/**
 * `/v1/imports`: document import, from an uploaded file or a model-hub dataset the template
 * service reads itself. The upload streams through to the template service in chunks (it
 * reads, estimates and later writes the rows); the gateway only bounds it in size and time. Every
 * route takes `memory:write`: an import's rows are writes, and its status belongs to whoever writes.
 */
export function importRoutes(templates: TemplateClient, auth: AuthDeps, limits: UploadLimits): Router {
  const router = Router();
  const write = requireApiKey(auth, 'memory:write');

  // A JSON body names a model-hub dataset; anything else is a file upload (the next route).
  const isJson: RequestHandler = (req, _res, next) => (req.is('application/json') ? next() : next('route'));
  router.post('/imports', isJson, write, ...jsonBody, async (req, res) => {
    const request = parseOrThrow(CreateDatasetImportRequest, req.body, 'import request');
    noteForRecord(req, { namespace: request.namespace });
    const job = await templates.createDatasetImport({
      scope: scopeOf(req),
      request_id: req.requestId,
      request,
    });
    res.status(201).json(job satisfies ImportJob);
  });

  router.post('/imports', write, async (req, res) => {
    const scope = scopeOf(req);
    const job = await receiveMultipartUpload(req, limits, async (file) => {
      const fields = parseImportForm(file);
      noteForRecord(req, { namespace: fields.namespace });
      return uploadImportFile(
        {
          scope,
          requestId: req.requestId,
          fileName: file.fileName,
          fields,
          content: file.stream,
          truncated: file.truncated,
          maxBytes: limits.maxBytes,
        },
        templates,
      );
    });
    res.status(201).json(job satisfies ImportJob);
  });

  router.post('/imports/:id/start', write, async (req, res) => {
    const job = await templates.startImport({
      scope: scopeOf(req),
      request_id: req.requestId,
      import_id: uuidRef(req.params.id, 'import'),
    });
    noteForRecord(req, { namespace: job.namespace });
    res.status(202).json(job);
  });

  router.get('/imports/:id', write, async (req, res) => {
    res.json(
      await templates.getImport({
        tenant_id: scopeOf(req).tenant_id,
        import_id: uuidRef(req.params.id, 'import'),
      }),
    );
  });

  router.get('/imports/:id/failures', write, async (req, res) => {
    const query = parseOrThrow(ImportListQuery, req.query, 'query');
    res.json(
      await templates.listImportFailures({
        tenant_id: scopeOf(req).tenant_id,
        import_id: uuidRef(req.params.id, 'import'),
        ...query,
      }),
    );
  });

  return router;
}

/** The upload's form fields, and its file's name, validated before anything is sent on. */
function parseImportForm(file: IncomingFile): CreateImportFields {
  const fields = parseOrThrow(CreateImportFields, file.fields, 'import form');
  if (file.fileName.includes('\u0000')) {
    throw new AppError(ErrorCode.ValidationFailed, 'Invalid import form: file', {
      fields: [{ path: 'file', message: `its name ${NUL_MESSAGE}` }],
    });
  }
  return fields;
}
