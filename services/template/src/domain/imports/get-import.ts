import { AppError, ErrorCode, type ImportJob, type ImportRefMessage } from '@tm/contracts';
import { findImportJob } from '../../data-access/import-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { importJobView, isVisibleJob } from './import-job-view.js';

export async function getImport(msg: ImportRefMessage, db = getPrisma()): Promise<ImportJob> {
  const job = await findImportJob(db, msg.tenant_id, msg.import_id);
  // an upload still arriving is not a job yet
  if (!isVisibleJob(job)) throw new AppError(ErrorCode.NotFound, 'No such import');
  return importJobView(job, db);
}
