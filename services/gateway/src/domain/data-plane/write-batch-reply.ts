import {
  type AppError,
  CONTRACT_VERSION,
  ErrorCode,
  WRITE_BATCH_OPERATION,
  type WriteBatchItemCounts,
  type WriteBatchResponse,
  type WriteResponse,
} from '@tm/contracts';
import { errorEnvelope } from '../error-envelope.js';
import { chargedUnits } from './charged-units.js';

/** How one item of a batch was answered: its write response, or the error its own write would have had. */
export type BatchItemAnswer = { ok: WriteResponse } | { error: AppError };

/** A batch's reply: the body the route answers, and the units the ledger charged for its items. */
export interface WriteBatchReply {
  body: WriteBatchResponse;
  /** Summed over the items, as their own records would have carried them; null when none is charged. */
  chargedUnits: number | null;
}

/** The batch's answer: per item, in order, the status and body its own /write would have answered. */
export function writeBatchReply(
  requestId: string,
  namespace: string,
  answers: BatchItemAnswer[],
): WriteBatchReply {
  const units = answers.reduce((sum, a) => sum + ('ok' in a ? (chargedUnits(a.ok) ?? 0) : 0), 0);
  return {
    body: {
      contract_version: CONTRACT_VERSION,
      operation: WRITE_BATCH_OPERATION,
      state: batchState(answers),
      request_id: requestId,
      // Resending is worth it when an item's own answer says so (409 idempotency_in_flight): every item
      // written already replays.
      retryable: answers.some((answer) => 'error' in answer && answer.error.retryable),
      namespace,
      item_counts: countItems(answers),
      results: answers.map((answer, index) =>
        'ok' in answer
          ? { index, status: 200, body: answer.ok }
          : {
              index,
              status: answer.error.status,
              body: errorEnvelope(answer.error, requestId, { idempotentWrite: true }),
            },
      ),
    },
    chargedUnits: units > 0 ? units : null,
  };
}

/** The batch's items by how each was answered (its answer and its request record carry them). */
export function countItems(answers: BatchItemAnswer[]): WriteBatchItemCounts {
  const counts = { total: answers.length, accepted: 0, replayed: 0, conflict: 0, invalid: 0, failed: 0 };
  for (const answer of answers) {
    if ('ok' in answer) {
      if (answer.ok.idempotency_outcome === 'Replayed') counts.replayed++;
      else counts.accepted++;
    } else if (
      answer.error.code === ErrorCode.IdempotencyConflict ||
      answer.error.code === ErrorCode.DuplicateEvent
    ) {
      counts.conflict++;
    } else if (answer.error.code === ErrorCode.ValidationFailed) {
      counts.invalid++;
    } else {
      counts.failed++;
    }
  }
  return counts;
}

/** retained if any item is (now or before); not_retained if items were answered but none kept; else no_data. */
export function batchState(answers: BatchItemAnswer[]): 'retained' | 'not_retained' | 'no_data' {
  const ok = answers.flatMap((a) => ('ok' in a ? [a.ok] : []));
  if (ok.some((r) => r.state === 'retained')) return 'retained';
  return ok.length > 0 ? 'not_retained' : 'no_data';
}
