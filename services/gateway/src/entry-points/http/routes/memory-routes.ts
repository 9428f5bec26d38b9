import {
  AppError,
  type DeleteReceipt,
  DeleteRequest,
  ErrorCode,
  LIMITS,
  parseOrThrow,
  RecallRequest,
  type TemplateNamespaceDeleted,
  WriteRequest,
} from '@tm/contracts';
import { type Response, Router } from 'express';
import type { MemoryClient } from '../../../clients/memory-client.js';
import type { TemplateClient } from '../../../clients/template-client.js';
import { resolveIdempotencyKey } from '../../../domain/data-plane/idempotency-key.js';
import { textCostOf, textCostOfAll } from '../../../domain/data-plane/write-cost.js';
import { readWriteBatch, writeMemoryBatch } from '../../../domain/data-plane/write-memory-batch.js';
import { type AuthDeps, countWriteCost, requireApiKey, scopeOf } from '../middleware/authenticate.js';
import { idempotentWrite } from '../middleware/error-handler.js';
import { jsonBody, jsonBodyUpTo } from '../middleware/json-body.js';
import { chargedNote, meteredNote, noteForRecord } from '../middleware/record-requests.js';
import { uuidRef } from '../path-params.js';
import { refuseReserved } from './reserved-namespace.js';

/** The v1 data plane: validate, call the memory service once, answer with what it said. */
export function memoryRoutes(
  memory: MemoryClient,
  auth: AuthDeps,
  templates: TemplateClient,
  options: { writeBatchBudgetMs: number },
): Router {
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
      await countWriteCost(auth, req, { items: 1, textChars: textCostOf(body.event.content.text) });
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

  // A batch of writes to one namespace: each item answered as its own /write would be.
  router.post(
    '/write/batch',
    idempotentWrite,
    requireApiKey(auth, 'memory:write'),
    ...jsonBodyUpTo(LIMITS.writeBatchBodyMaxBytes),
    async (req, res) => {
      refuseBatchKeyHeader(req.get('idempotency-key'));
      const batch = readWriteBatch(req.body);
      noteForRecord(req, { namespace: refuseReserved(batch.namespace) });
      // A batch of N does the work of N writes, and is limited as they would be; its long text counts
      // against the tenant's text budget, so one tenant's largest batches cannot fill memory's queue.
      const texts = batch.items.flatMap((entry) => ('item' in entry ? [entry.item.event.content.text] : []));
      await countWriteCost(auth, req, { items: batch.items.length, textChars: textCostOfAll(texts) });
      const reply = await writeMemoryBatch(
        memory,
        { scope: scopeOf(req), requestId: req.requestId },
        batch,
        options.writeBatchBudgetMs,
      );
      // The batch's record: its items' counts, and the units its items' own records would have summed.
      noteForRecord(req, {
        state: reply.body.state,
        ...chargedNote(reply.chargedUnits),
        itemCounts: reply.body.item_counts,
      });
      res.json(reply.body);
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
    // The template service's part first: its fence (new template memories, imports and restores into
    // the namespace refused, its running jobs cancelled, their batches in flight finished) is up when
    // it answers, so nothing of it writes into the namespace once memory's job starts, which hides the
    // records and refuses every write from its commit. Its data goes on being removed after it answers;
    // the receipt is final only when both parts are.
    const templatePart = await templates.deleteNamespace({ tenant_id: scope.tenant_id, namespace });
    const result = await memory.delete({ scope, request_id: req.requestId, namespace });
    noteForRecord(req, meteredNote(result));
    answerReceipt(res, withTemplatePart(result, templatePart));
  });

  // A namespace deletion's receipt as it stands, while its job runs and after (tenant-scoped: another
  // tenant's deletion id is a 404, as an unknown one).
  router.get('/deletions/:id', requireApiKey(auth, 'memory:delete'), async (req, res) => {
    const result = await memory.getDeletion({
      scope: scopeOf(req),
      request_id: req.requestId,
      deletion_id: uuidRef(req.params.id, 'namespace deletion'),
    });
    // Follows (and after a restart resumes) the template part, never starts one.
    const templatePart = await templates.deleteNamespace({
      tenant_id: scopeOf(req).tenant_id,
      namespace: result.namespace,
      follow: true,
    });
    const receipt = withTemplatePart(result, templatePart);
    noteForRecord(req, { namespace: result.namespace, ...meteredNote(receipt) });
    if (receipt.deletion.status === 'in_progress') res.setHeader('Retry-After', '1');
    res.json(receipt);
  });

  return router;
}

/** Each item carries its own key; one key for the batch would name no write. */
function refuseBatchKeyHeader(header: string | undefined): void {
  if (header === undefined) return;
  throw new AppError(ErrorCode.ValidationFailed, 'A batch takes no Idempotency-Key header', {
    fields: [{ path: 'Idempotency-Key', message: 'each item carries its own idempotency_key' }],
  });
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
 * The receipt of both parts: memory's job completed while the template service still removes its
 * data is a deletion still in progress (nothing of the namespace is left only once both are done).
 */
function withTemplatePart(receipt: DeleteReceipt, templatePart: TemplateNamespaceDeleted): DeleteReceipt {
  if (templatePart.status === 'completed' || receipt.deletion.status !== 'completed') return receipt;
  return { ...receipt, deletion: { ...receipt.deletion, status: 'in_progress', finished_at: null } };
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
