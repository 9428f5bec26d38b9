import { CONTRACT_VERSION, type DeleteReceipt } from '@tm/contracts';
import type { DeletionJob } from '../data-access/namespace-deletion.js';

/**
 * The receipt of a namespace deletion as its job stands. `state` is the operation's, in the spec's
 * vocabulary: `not_retained` once the namespace held records (they are hidden at once and removed by
 * the job), `no_data` when it held none; the job's own progress is `deletion`, apart from it.
 */
export function deletionReceipt(job: DeletionJob, requestId: string): DeleteReceipt {
  const completed = job.status === 'completed';
  return {
    contract_version: CONTRACT_VERSION,
    operation: 'memory.delete',
    state: job.recordsTotal > 0 ? 'not_retained' : 'no_data',
    request_id: requestId,
    retryable: false,
    namespace: job.namespace,
    deleted: job.records,
    retained: completed ? 0 : Math.max(job.recordsTotal - job.records, 0),
    removed: { supersession_relations: job.relations, idempotency_entries: job.idempotencyEntries },
    deletion: {
      id: job.id,
      status: job.status,
      progress: { records_deleted: job.records, records_total: job.recordsTotal, batches: job.batches },
      started_at: job.startedAt,
      updated_at: job.updatedAt,
      finished_at: job.finishedAt,
    },
  };
}
