import {
  AppError,
  type DeleteReceipt,
  DeleteRequest,
  ErrorCode,
  isReservedNamespace,
  parseOrThrow,
  RESERVED_NAMESPACE_PREFIX,
  RecallRequest,
  WriteRequest,
} from '@tm/contracts';
import { type Response, Router } from 'express';
import type { MemoryClient } from '../../../clients/memory-client.js';
import type { TemplateClient } from '../../../clients/template-client.js';
import { resolveIdempotencyKey } from '../../../domain/data-plane/idempotency-key.js';
import { type AuthDeps, requireApiKey, scopeOf } from '../middleware/authenticate.js';
import { idempotentWrite } from '../middleware/error-handler.js';
import { jsonBody } from '../middleware/json-body.js';
import { meteredNote, noteForRecord } from '../middleware/record-requests.js';
import { uuidRef } from '../path-params.js';

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
    const { namespace } = parseOrThrow(DeleteRequest, deleteRequestOf(req.query, req.body), 'delete request');
    noteForRecord(req, { namespace: refuseReserved(namespace) });
    const scope = scopeOf(req);
    // Template memories first, to their end, so a copy of the data never stays readable once the text
    // is gone. The template service deletes in committed batches and goes on after answering: when it
    // is not done within its wait it answers a retryable 503, and the retry joins its running deletion
    // (or resumes from the last batch), so every retry gets further and none starts over.
    await templates.deleteNamespace({ tenant_id: scope.tenant_id, namespace });
    const result = await memory.delete({ scope, request_id: req.requestId, namespace });
    noteForRecord(req, meteredNote(result));
    answerReceipt(res, result);
  });

  // A namespace deletion's receipt as it stands, while its job runs and after (tenant-scoped: another
  // tenant's deletion id is a 404, as an unknown one).
  router.get('/deletions/:id', requireApiKey(auth, 'memory:delete'), async (req, res) => {
    const result = await memory.getDeletion({
      scope: scopeOf(req),
      request_id: req.requestId,
      deletion_id: uuidRef(req.params.id, 'namespace deletion'),
    });
    noteForRecord(req, { namespace: result.namespace, ...meteredNote(result) });
    if (result.deletion.status === 'in_progress') res.setHeader('Retry-After', '1');
    res.json(result);
  });

  return router;
}

/**
 * The query's and the body's fields as one request, the namespace settled between them: any other
 * field of either stays in, so the strict schema names it (400) rather than the delete ignoring it.
 */
function deleteRequestOf(query: Record<string, unknown>, body: unknown): Record<string, unknown> {
  const bodyFields = body && typeof body === 'object' && !Array.isArray(body) ? body : {};
  return { ...bodyFields, ...query, namespace: deleteNamespaceOf(query.namespace, body) };
}

/**
 * 200 with the final receipt once the deletion has completed; 202 while its job runs, pointing to the
 * status route to poll (the records are already hidden from every read).
 */
function answerReceipt(res: Response, receipt: DeleteReceipt): void {
  if (receipt.deletion.status === 'completed') {
    res.json(receipt);
    return;
  }
  res
    .status(202)
    .setHeader('Location', `/api/v1/memory/deletions/${receipt.deletion.id}`)
    .setHeader('Retry-After', '1')
    .json(receipt);
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
