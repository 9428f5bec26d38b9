import type { DeleteReceipt, MemoryDeleteMessage } from '@tm/contracts';
import { timeOrderedId } from '@tm/kit';
import { findDeletion, startDeletion } from '../data-access/namespace-deletion.js';
import { getSql } from '../data-access/prisma-client.js';
import { deletionReceipt } from './deletion-receipt.js';
import type { DeletionWorker } from './deletion-worker.js';

/**
 * Delete exactly one namespace of the caller's tenant: records, postings, supersession relations and
 * idempotency state (usage already recorded stays: billing history). The call starts a deletion job,
 * or finds the one already running for the namespace (so asking again never starts over), hands it to
 * the worker and waits up to `waitMs` for it: the receipt is final when the job finished in that time,
 * else it says how far the job got and the caller polls memory.v1.deletions.get.
 */
export async function deleteNamespace(
  msg: MemoryDeleteMessage,
  worker: DeletionWorker,
  waitMs: number,
): Promise<DeleteReceipt> {
  const run = getSql();
  const tenantId = msg.scope.tenant_id;
  const { job } = await startDeletion(run, {
    id: timeOrderedId(),
    tenantId,
    namespace: msg.namespace,
    requestId: msg.request_id,
  });
  if (job.status === 'completed') return deletionReceipt(job, msg.request_id);
  worker.hide(tenantId, msg.namespace);
  await worker.waitFor(job.id, waitMs);
  return deletionReceipt((await findDeletion(run, tenantId, job.id)) ?? job, msg.request_id);
}
