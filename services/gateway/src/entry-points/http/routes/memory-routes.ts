import {
  AppError,
  DeleteRequest,
  ErrorCode,
  isReservedNamespace,
  parseOrThrow,
  RESERVED_NAMESPACE_PREFIX,
  RecallRequest,
  WriteRequest,
} from '@tm/contracts';
import { Router } from 'express';
import type { MemoryClient } from '../../../clients/memory-client.js';
import type { TemplateClient } from '../../../clients/template-client.js';
import { resolveIdempotencyKey } from '../../../domain/data-plane/idempotency-key.js';
import { type AuthDeps, requireApiKey, scopeOf } from '../middleware/authenticate.js';
import { idempotentWrite } from '../middleware/error-handler.js';
import { jsonBody } from '../middleware/json-body.js';
import { meteredNote, noteForRecord } from '../middleware/record-requests.js';

/** The smoke test's namespaces are not the public API's to use. */
function refuseReserved(namespace: string): string {
  if (isReservedNamespace(namespace)) {
    throw new AppError(ErrorCode.ValidationFailed, 'This namespace is reserved', {
      fields: [{ path: 'namespace', message: `must not start with ${RESERVED_NAMESPACE_PREFIX}` }],
    });
  }
  return namespace;
}

/** The v1 data plane: validate, call the memory service once, answer with what it said. */
export function memoryRoutes(memory: MemoryClient, auth: AuthDeps, templates: TemplateClient): Router {
  const router = Router();

  router.post(
    '/write',
    idempotentWrite,
    requireApiKey(auth, 'memory:write'),
    ...jsonBody,
    async (req, res) => {
      const body = parseOrThrow(WriteRequest, req.body, 'write request');
      noteForRecord(req, { namespace: refuseReserved(body.namespace) });
      const idempotencyKey = resolveIdempotencyKey(req.get('idempotency-key'), body.idempotency_key);
      const result = await memory.write({
        scope: scopeOf(req),
        request_id: req.requestId,
        idempotency_key: idempotencyKey,
        body,
      });
      noteForRecord(req, meteredNote(result));
      res.json(result);
    },
  );

  router.post('/recall', requireApiKey(auth, 'memory:recall'), ...jsonBody, async (req, res) => {
    const body = parseOrThrow(RecallRequest, req.body, 'recall request');
    noteForRecord(req, { namespace: refuseReserved(body.namespace) });
    const result = await memory.recall({ scope: scopeOf(req), request_id: req.requestId, body });
    noteForRecord(req, meteredNote(result));
    res.json(result);
  });

  router.delete('/', requireApiKey(auth, 'memory:delete'), ...jsonBody, async (req, res) => {
    const { namespace } = parseOrThrow(
      DeleteRequest,
      { namespace: deleteNamespaceOf(req.query.namespace, req.body) },
      'delete request',
    );
    noteForRecord(req, { namespace: refuseReserved(namespace) });
    const scope = scopeOf(req);
    // Template memories first: if the template service cannot delete, nothing is deleted and the
    // caller retries, rather than the text going while a copy of its data stays readable.
    await templates.deleteNamespace({ tenant_id: scope.tenant_id, namespace });
    const result = await memory.delete({ scope, request_id: req.requestId, namespace });
    noteForRecord(req, meteredNote(result));
    res.json(result);
  });

  return router;
}

/**
 * The namespace comes from `?namespace=` or a JSON body; both may be sent if they agree. Anything
 * ambiguous is a 400, never a wider delete.
 */
function deleteNamespaceOf(query: unknown, body: unknown): unknown {
  if (Array.isArray(query)) {
    throw new AppError(ErrorCode.ValidationFailed, 'Give exactly one namespace', {
      fields: [{ path: 'namespace', message: 'must be given once' }],
    });
  }
  const fromBody = body && typeof body === 'object' ? (body as { namespace?: unknown }).namespace : undefined;
  if (query !== undefined && fromBody !== undefined && query !== fromBody) {
    throw new AppError(
      ErrorCode.ValidationFailed,
      'The namespace query parameter and body namespace differ',
      {
        fields: [{ path: 'namespace', message: 'query and body must agree' }],
      },
    );
  }
  return query ?? fromBody;
}
