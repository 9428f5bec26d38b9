import { CONTRACT_VERSION, type RestoreJob, RestoreState } from '@tm/contracts';
import type { ImportJobRecord } from '../../data-access/import-repository.js';
import { countImportRows, type RowCounts } from '../../data-access/import-row-counts.js';
import { getPrisma } from '../../data-access/prisma-client.js';

/** A restore as callers see it, its progress counted from its rows (a cancelled one's as they stood when it stopped). */
export async function restoreJobView(job: ImportJobRecord, db = getPrisma()): Promise<RestoreJob> {
  const counts = (job.finalCounts as RowCounts | null) ?? (await countImportRows(db, job.id));
  return {
    contract_version: CONTRACT_VERSION,
    id: job.id,
    state: RestoreState.parse(job.state),
    namespace: job.namespace,
    from_namespace: job.fromNamespace ?? job.namespace,
    total: counts.pending + counts.retained + counts.present + counts.failed,
    processed: counts.retained + counts.present + counts.failed,
    written: counts.retained,
    already_present: counts.present,
    failed: counts.failed,
    created_at: job.createdAt.toISOString(),
    completed_at: job.completedAt?.toISOString() ?? null,
  };
}

/** A restore still being filled (`uploading`) is not a job yet: its id was never given out. */
export function isVisibleRestore(job: ImportJobRecord | null): job is ImportJobRecord {
  return job !== null && job.state !== 'uploading';
}
