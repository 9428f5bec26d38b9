import {
  AppError,
  CONTRACT_VERSION,
  ErrorCode,
  type MemoryWriteBatchMessage,
  type WriteResponse,
} from '@tm/contracts';
import { isStorageUnavailable } from '@tm/kit';
import { namespaceBeingDeleted, type WriteDeps, writeMemory } from './write-memory.js';

export type BatchItemAnswer = { ok: WriteResponse } | { error: AppError };

/**
 * One caller's batch of writes to one namespace ([P20]): each item goes through writeMemory, exactly
 * as its own single write would (the same idempotency ledger, fingerprint, consent and supersession),
 * and is answered on its own, in order. The items start in one turn, so the write batcher retains the
 * plain ones in shared statements (up to 64 a statement); an item's refusal (400, 409) is its own.
 *
 * Refused as a whole, nothing written: a namespace being deleted (as a single write to it would be,
 * checked once for the batch; consent first, as there). Failed as a whole: the database away (the
 * service maps it to a retryable 503). Items committed before it stay committed; a resend of the batch
 * replays them (billed once) and writes the rest.
 */
export async function writeMemoryBatch(
  msg: MemoryWriteBatchMessage,
  deps: WriteDeps,
): Promise<BatchItemAnswer[]> {
  const { scope, request_id, namespace } = msg;
  if (scope.consent === 'granted' && (await deps.refusesWrites?.(scope.tenant_id, namespace))) {
    throw namespaceBeingDeleted();
  }
  return Promise.all(
    msg.items.map((item) =>
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
