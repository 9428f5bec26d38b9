import {
  AppError,
  CONTRACT_VERSION,
  ErrorCode,
  type ListRestoreFailuresMessage,
  type RestoreFailurePage,
  RestoreFailureReason,
} from '@tm/contracts';
import { findImportJob, listFailedRows } from '../../data-access/import-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { isVisibleRestore } from './restore-job-view.js';

/** Records that were refused, in write order: event id, reason and message, never their text. */
export async function listRestoreFailures(
  msg: ListRestoreFailuresMessage,
  db = getPrisma(),
): Promise<RestoreFailurePage> {
  const job = await findImportJob(db, msg.tenant_id, msg.restore_id, 'restore');
  if (!isVisibleRestore(job)) throw new AppError(ErrorCode.NotFound, 'No such restore');
  const { rows, total } = await listFailedRows(db, job.id, msg.limit, msg.offset);
  return {
    contract_version: CONTRACT_VERSION,
    restore_id: job.id,
    failures: rows.map((r) => ({
      event_id: r.eventId ?? '',
      reason: RestoreFailureReason.parse(r.reason),
      message: r.message ?? '',
    })),
    paging: { total, limit: msg.limit, offset: msg.offset },
  };
}
