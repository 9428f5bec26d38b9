import { AppError, ErrorCode, type RestoreJob, type RestoreRefMessage } from '@tm/contracts';
import { findImportJob } from '../../data-access/import-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { isVisibleRestore, restoreJobView } from './restore-job-view.js';

export async function getRestore(msg: RestoreRefMessage, db = getPrisma()): Promise<RestoreJob> {
  const job = await findImportJob(db, msg.tenant_id, msg.restore_id, 'restore');
  if (!isVisibleRestore(job)) throw new AppError(ErrorCode.NotFound, 'No such restore');
  return restoreJobView(job, db);
}
