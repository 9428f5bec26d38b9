import { fromBusErrorBody } from '@tm/bus';
import {
  AppError,
  batchItemNotStarted,
  ErrorCode,
  type FieldIssue,
  parseOrThrow,
  type Scope,
  validateInput,
  WriteBatchEnvelope,
  WriteBatchItem,
  type WriteResponse,
} from '@tm/contracts';
import type { MemoryClient } from '../../clients/memory-client.js';
import { type BatchItemAnswer, type WriteBatchReply, writeBatchReply } from './write-batch-reply.js';

/** A batch whose envelope is sound: its namespace, and per item (in order) its checked form or its 400. */
export interface CheckedBatch {
  namespace: string;
  items: Array<{ item: WriteBatchItem } | { error: AppError }>;
}

/**
 * Payload bytes of items in one message to memory: NATS refuses messages over its max_payload (1 MiB
 * here), and the largest item (32,768 characters of text, all escaped, and 100 supersedes) is about
 * 360 kB, so every item fits in one. A batch of short events (the usual) is one message.
 */
const MESSAGE_MAX_BYTES = 512 * 1024;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** `items[3].event.content.text`: an item's field, as the batch's 400s name it. */
const itemPath = (index: number, path: string) =>
  path === '(body)' ? `items[${index}]` : `items[${index}].${path}`;

const invalidItem = (index: number, fields: FieldIssue[]) => {
  const prefixed = fields.map((f) => ({ path: itemPath(index, f.path), message: f.message }));
  return new AppError(
    ErrorCode.ValidationFailed,
    `Invalid item: ${[...new Set(prefixed.map((f) => f.path))].join(', ')}`,
    { fields: prefixed },
  );
};

/**
 * Check a batch: the envelope as a whole (contract_version, operation, namespace, items a list
 * of 1 to 100), where any fault is one 400 for the batch; then each item on its own with the single
 * write's event schema, where a fault is that item's 400 (`items[i].…`) and its neighbours go on.
 * The items' contents are not looked at by the envelope's check (a NUL in an item is the item's fault).
 */
export function readWriteBatch(body: unknown): CheckedBatch {
  const items = isRecord(body) ? body.items : undefined;
  const envelope = isRecord(body)
    ? { ...body, items: Array.isArray(items) ? items.map(() => null) : items }
    : body;
  const { namespace } = parseOrThrow(WriteBatchEnvelope, envelope, 'write batch');
  return {
    namespace,
    items: (items as unknown[]).map((raw, index) => {
      const checked = validateInput(WriteBatchItem, raw);
      return checked.fields ? { error: invalidItem(index, checked.fields) } : { item: checked.data };
    }),
  };
}

/** The checked items, cut into messages of at most MESSAGE_MAX_BYTES of items (never an empty one). */
function splitIntoMessages(items: Array<{ index: number; item: WriteBatchItem }>) {
  const messages: Array<typeof items> = [];
  let current: typeof items = [];
  let bytes = 0;
  for (const entry of items) {
    const size = Buffer.byteLength(JSON.stringify(entry.item));
    if (current.length > 0 && bytes + size > MESSAGE_MAX_BYTES) {
      messages.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) messages.push(current);
  return messages;
}

/** An item's error as memory answered it, its fields named where they are in the batch. */
function itemError(index: number, raw: unknown): AppError {
  const error = fromBusErrorBody(raw);
  if (!error.fields) return error;
  return new AppError(error.code, error.message, {
    retryable: error.retryable,
    retryAfter: error.retryAfter,
    fields: error.fields.map((f) => ({ path: itemPath(index, f.path), message: f.message })),
  });
}

/**
 * Write a checked batch and answer it (write-batch-reply.ts): its valid items to the memory service in
 * one message per 512 kB of items, each written there exactly as its single write would be; answers
 * merged with the items' own 400s, in request order. The messages go one after another, so one
 * tenant's batch is one stream of work in memory, not seven beside everyone else's writes. Memory
 * starts items for `budgetMs` in all (what is left of it for each message); an item not started by
 * then is answered retryable, not written after the caller was answered. A message that fails as a
 * whole (memory, NATS or its database away, no answer in time, the namespace being deleted) fails the
 * batch with its error: every item is idempotent, so resending the batch replays what was written
 * (Replayed, billed once) and writes the rest.
 */
export async function writeMemoryBatch(
  memory: MemoryClient,
  caller: { scope: Scope; requestId: string },
  batch: CheckedBatch,
  budgetMs: number,
  now: () => number = Date.now,
): Promise<WriteBatchReply> {
  const deadline = now() + budgetMs;
  const answers: Array<BatchItemAnswer | undefined> = batch.items.map((entry) =>
    'error' in entry ? entry : undefined,
  );
  const valid = batch.items.flatMap((entry, index) => ('item' in entry ? [{ index, item: entry.item }] : []));
  for (const message of splitIntoMessages(valid)) {
    const left = deadline - now();
    if (left <= 0) {
      for (const { index } of message) answers[index] = { error: batchItemNotStarted() };
      continue;
    }
    const answered = await memory.writeItems({
      version: 'v1',
      scope: caller.scope,
      request_id: caller.requestId,
      namespace: batch.namespace,
      items: message.map((m) => m.item),
      time_budget_ms: left,
    });
    if (answered.results.length !== message.length) {
      throw new AppError(ErrorCode.Internal, 'The memory service answered outside its contract');
    }
    for (const [i, { index }] of message.entries()) {
      const result = answered.results[i] as { ok: WriteResponse } | { error: unknown };
      answers[index] = 'ok' in result ? result : { error: itemError(index, result.error) };
    }
  }
  return writeBatchReply(caller.requestId, batch.namespace, answers as BatchItemAnswer[]);
}
