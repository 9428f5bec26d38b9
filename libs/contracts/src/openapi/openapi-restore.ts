import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { ImportListQuery } from '../imports/imports.js';
import {
  RESTORE_LIMITS,
  RestoreDocument,
  RestoreFailurePage,
  RestoreJob,
  RestoreQuery,
} from '../imports/restore.js';
import { errors, json, requestIdHeaders } from './openapi-shared.js';

const apiKey: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
const restoreRef = z.object({
  restore_id: z.string().meta({ description: 'The restore job’s id (a UUID)' }),
});

const restoreOp: ZodOpenApiOperationObject = {
  operationId: 'memoryRestore',
  summary: 'Restore an export file into a namespace, as a job (API key with memory:write)',
  description:
    'The body is an export document exactly as `GET /api/v1/infrastructure/export` wrote it. The records of one ' +
    'of its namespaces (`from_namespace`; needed only when the export holds several) are written into ' +
    '`namespace` (default: the same name) of the caller’s tenant, each with its event id, occurred_at, text and ' +
    'source, and its supersessions replayed in the order the records were first retained, so the relations ' +
    'come back as they were (superseded or unresolved). New memory ids and retained_at. Each record is written ' +
    'under an idempotency key made of the target namespace and its event id: restoring the same file again ' +
    'stores and bills nothing (`already_present`), and a record whose event id is already retained there is ' +
    'left as it is. Billed as writes: one unit per record written. 202 with the job; poll ' +
    '`/api/v1/memory/restore/{restore_id}`. A malformed file, counts that do not match its parts, or a ' +
    'record `/write` would refuse is one 400 and nothing is stored; more than ' +
    `${RESTORE_LIMITS.maxRecords} records is a 400, a body over ${RESTORE_LIMITS.bodyMaxBytes} bytes a 413. ` +
    'The file’s history (the source’s request log) is not restored.',
  security: apiKey,
  requestParams: { query: RestoreQuery, header: requestIdHeaders },
  requestBody: { required: true, ...json(RestoreDocument) },
  responses: {
    '202': { description: 'The job, started', ...json(RestoreJob) },
    ...errors(400, 401, 403, 413, 415, 429, 500, 503, 504),
  },
};

/** Restore an export: start a job, its progress, the records it could not write. */
export const restorePaths: ZodOpenApiPathsObject = {
  '/api/v1/memory/restore': { post: restoreOp },
  '/api/v1/memory/restore/{restore_id}': {
    get: {
      operationId: 'memoryRestoreStatus',
      summary: 'A restore job’s progress (API key with memory:write)',
      description:
        '`state` is `processing` (poll again after Retry-After) or `completed`. Another tenant’s restore, ' +
        'or one unknown, is 404; so is a restore whose target namespace was deleted meanwhile (the job goes ' +
        'with the namespace, as an import does).',
      security: apiKey,
      requestParams: { path: restoreRef, header: requestIdHeaders },
      responses: {
        '200': { description: 'The job as it stands', ...json(RestoreJob) },
        ...errors(400, 401, 403, 404, 429, 500, 503, 504),
      },
    },
  },
  '/api/v1/memory/restore/{restore_id}/failures': {
    get: {
      operationId: 'memoryRestoreFailures',
      summary: 'Records a restore could not write: event id, reason, message (never the text)',
      security: apiKey,
      requestParams: { path: restoreRef, query: ImportListQuery, header: requestIdHeaders },
      responses: {
        '200': { description: 'A page of failures, in write order', ...json(RestoreFailurePage) },
        ...errors(400, 401, 403, 404, 429, 500, 503, 504),
      },
    },
  },
};
