import { AppError, DeleteRequest, ErrorCode, parseOrThrow, RecallRequest, WriteRequest } from '@tm/contracts';
import { Router } from 'express';
import type { MemoryClient } from '../../../clients/memory-client.js';
import { resolveIdempotencyKey } from '../../../domain/idempotency-key.js';
import { type AuthDeps, requireApiKey, scopeOf } from '../middleware/authenticate.js';
import { jsonBody } from '../middleware/json-body.js';

/** The v1 data plane: validate, call the memory service once, answer with what it said. */
export function memoryRoutes(memory: MemoryClient, auth: AuthDeps): Router {
  const router = Router();

  router.post('/write', requireApiKey(auth, 'memory:write'), ...jsonBody, async (req, res) => {
    const body = parseOrThrow(WriteRequest, req.body, 'write request');
    const idempotencyKey = resolveIdempotencyKey(req.get('idempotency-key'), body.idempotency_key);
    res.json(
      await memory.write({
        scope: scopeOf(req),
        request_id: req.requestId,
        idempotency_key: idempotencyKey,
        body,
      }),
    );
  });

  router.post('/recall', requireApiKey(auth, 'memory:recall'), ...jsonBody, async (req, res) => {
    const body = parseOrThrow(RecallRequest, req.body, 'recall request');
    res.json(await memory.recall({ scope: scopeOf(req), request_id: req.requestId, body }));
  });

  router.delete('/', requireApiKey(auth, 'memory:delete'), ...jsonBody, async (req, res) => {
    const { namespace } = parseOrThrow(
      DeleteRequest,
      { namespace: deleteNamespaceOf(req.query.namespace, req.body) },
      'delete request',
    );
    res.json(await memory.delete({ scope: scopeOf(req), request_id: req.requestId, namespace }));
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
