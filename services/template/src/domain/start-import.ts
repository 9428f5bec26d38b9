import { AppError, ErrorCode, type ImportJob, type StartImportMessage } from '@tm/contracts';
import { findImportJob, markImportProcessing } from '../data-access/import-repository.js';
import { getPrisma } from '../data-access/prisma-client.js';
import { importJobView } from './import-job-view.js';

/**
 * estimated → processing. The caller's scope is kept with the job: the background writes carry it,
 * so consent and storage are the starter's. Starting again answers the job as it is.
 */
export async function startImport(
  msg: StartImportMessage,
  deps: { nudge: () => void },
  db = getPrisma(),
): Promise<ImportJob> {
  const job = await findImportJob(db, msg.scope.tenant_id, msg.import_id);
  if (!job || job.state === 'uploading') throw new AppError(ErrorCode.NotFound, 'No such import');
  if (await markImportProcessing(db, job.id, msg.scope)) deps.nudge();
  const current = await findImportJob(db, msg.scope.tenant_id, msg.import_id);
  if (!current) throw new AppError(ErrorCode.NotFound, 'No such import');
  return importJobView(current, db);
}
