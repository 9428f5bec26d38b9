import type { ImportRefMessage } from '@tm/contracts';
import { deleteImportJob, findImportJob } from '../data-access/import-repository.js';

/** A refused upload (too large, stalled) leaves nothing behind: its job, chunks and rows go. */
export async function discardImport(msg: ImportRefMessage): Promise<{ ok: true }> {
  const job = await findImportJob(msg.tenant_id, msg.import_id);
  if (job && job.state === 'uploading') await deleteImportJob(job.id);
  return { ok: true };
}
