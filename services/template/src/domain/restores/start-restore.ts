import { AppError, ErrorCode, type RestoreJob, type StartRestoreMessage } from '@tm/contracts';
import {
  countAllImportRows,
  findImportJob,
  markRestoreProcessing,
} from '../../data-access/import-repository.js';
import { underFence } from '../../data-access/namespace-fence.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { isVisibleRestore, restoreJobView } from './restore-job-view.js';

/**
 * uploading → processing, once every row the job was opened for is stored; the caller's scope is kept
 * with the job (its writes carry it, so consent is the restorer's). Starting again answers the job.
 */
export async function startRestore(
  msg: StartRestoreMessage,
  deps: { nudge: () => void },
  db = getPrisma(),
): Promise<RestoreJob> {
  const job = await findImportJob(db, msg.scope.tenant_id, msg.restore_id, 'restore');
  if (!job) throw new AppError(ErrorCode.NotFound, 'No such restore');
  if (job.state === 'uploading') {
    const stored = await countAllImportRows(db, job.id);
    if (stored !== job.restoreRows) {
      throw new AppError(ErrorCode.Internal, 'A restore was started before all its records arrived');
    }
    // Under the namespace's fence: a namespace being deleted starts no restore (409).
    const started = await underFence(db, job, (tx) => markRestoreProcessing(tx, job.id, msg.scope), {
      timeoutMs: 5_000,
    });
    if (started) deps.nudge();
  }
  const current = await findImportJob(db, msg.scope.tenant_id, msg.restore_id, 'restore');
  if (!isVisibleRestore(current)) throw new AppError(ErrorCode.NotFound, 'No such restore');
  return restoreJobView(current, db);
}
