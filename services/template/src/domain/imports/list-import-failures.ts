import {
  AppError,
  ErrorCode,
  type ImportFailurePage,
  ImportFailureReason,
  type ListImportFailuresMessage,
} from '@tm/contracts';
import { findImportJob, listFailedRows } from '../../data-access/import-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { isVisibleJob } from './import-job-view.js';

/** Rows that were not retained, by row number: reason and message, never the row's values or text. */
export async function listImportFailures(
  msg: ListImportFailuresMessage,
  db = getPrisma(),
): Promise<ImportFailurePage> {
  const job = await findImportJob(db, msg.tenant_id, msg.import_id);
  if (!isVisibleJob(job)) throw new AppError(ErrorCode.NotFound, 'No such import');
  const { rows, total } = await listFailedRows(db, job.id, msg.limit, msg.offset);
  return {
    import_id: job.id,
    failures: rows.map((r) => ({
      row: r.rowNumber,
      reason: ImportFailureReason.parse(r.reason),
      message: r.message ?? '',
    })),
    paging: { total, limit: msg.limit, offset: msg.offset },
  };
}
