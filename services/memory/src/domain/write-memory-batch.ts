import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  AppError,
  batchItemNotStarted,
  CONTRACT_VERSION,
  ErrorCode,
  LIMITS,
  type MemoryWriteBatchMessage,
  type WriteResponse,
} from '@tm/contracts';
import { isStorageUnavailable } from '@tm/kit';
import { namespaceBeingDeleted, type WriteDeps, writeMemory } from './write-memory.js';

export type BatchItemAnswer = { ok: WriteResponse } | { error: AppError };

/**
 * Characters of text a batch starts at once: one item of the longest text, or many short ones (an
 * ordinary batch of notes is still one chunk, its writes sharing statements). Tokenizing is
 * synchronous, 25 to 80 ms per 32,768 characters here (100 such items: 2.5 to 8.1 s under load), and
 * all of a batch's items used to start in one turn: 15 long items held the event loop, and every
 * other tenant's write, for up to a second. Four long items a chunk still took 7 s to commit at a
 * load average of 35, past the whole deadline; one (about 5,400 postings, one statement) keeps both
 * the loop's hold and the time between two looks at the budget as short as an item allows.
 */
const CHUNK_CHARS = LIMITS.textMaxChars;

/** The items in chunks of at most CHUNK_CHARS of text (never an empty one), in order. */
function chunksOf<T extends { event: { content: { text: string } } }>(items: readonly T[]): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let chars = 0;
  for (const item of items) {
    const size = item.event.content.text.length;
    if (current.length > 0 && chars + size > CHUNK_CHARS) {
      chunks.push(current);
      current = [];
      chars = 0;
    }
    current.push(item);
    chars += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * One caller's batch of writes to one namespace: each item goes through writeMemory, exactly as its
 * own single write would (the same idempotency ledger, fingerprint, consent and supersession), and is
 * answered on its own, in order. Items start a chunk at a time (CHUNK_CHARS); a chunk's items start in
 * one turn, so the plain ones are retained in shared statements (shared-statements.ts); an item's
 * refusal (400, 409) is its own. Chunks are started only within the message's time budget: the rest
 * are answered retryable (503 service_unavailable) and left unwritten, so nothing is written after the
 * gateway has answered.
 *
 * Refused as a whole, nothing written: a namespace being deleted (as a single write to it would be,
 * checked once for the batch; consent first, as there). Failed as a whole: the database away (the
 * service maps it to a retryable 503). Items committed before it stay committed; a resend of the batch
 * replays them (billed once) and writes the rest.
 */
export async function writeMemoryBatch(
  msg: MemoryWriteBatchMessage,
  deps: WriteDeps,
  now: () => number = Date.now,
): Promise<BatchItemAnswer[]> {
  const deadline = now() + (msg.time_budget_ms ?? Number.POSITIVE_INFINITY);
  const { scope, namespace } = msg;
  if (scope.consent === 'granted' && (await deps.refusesWrites?.(scope.tenant_id, namespace))) {
    throw namespaceBeingDeleted();
  }
  const answers: BatchItemAnswer[] = [];
  for (const [i, chunk] of chunksOf(msg.items).entries()) {
    if (i > 0) await nextTurn();
    if (now() >= deadline) answers.push(...chunk.map(() => ({ error: batchItemNotStarted() })));
    else answers.push(...(await writeChunk(msg, chunk, deps)));
  }
  return answers;
}

function writeChunk(
  msg: MemoryWriteBatchMessage,
  items: MemoryWriteBatchMessage['items'],
  deps: WriteDeps,
): Promise<BatchItemAnswer[]> {
  const { scope, request_id, namespace } = msg;
  return Promise.all(
    items.map((item) =>
      writeMemory(
        {
          scope,
          request_id,
          idempotency_key: item.idempotency_key,
          body: { contract_version: CONTRACT_VERSION, namespace, event: item.event },
        },
        deps,
      ).then(
        (ok): BatchItemAnswer => ({ ok }),
        (err: unknown): BatchItemAnswer => {
          if (err instanceof AppError) return { error: err };
          // The database away fails the batch whole (the service maps it to a retryable 503). Anything
          // else is this item's own failure, its 500 as its single write's would be: one poison item
          // must not hide what happened to the rest, nor keep a resend from ever completing.
          if (isStorageUnavailable(err)) throw err;
          return { error: new AppError(ErrorCode.Internal, 'Internal error', { cause: err }) };
        },
      ),
    ),
  );
}
