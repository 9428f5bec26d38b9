import type { ImportRefMessage } from '@tm/contracts';
import { deleteImportJob, findImportJob } from '../../data-access/import-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';

/** A refused upload (too large, stalled) leaves nothing behind: its job, chunks and rows go. */
export async function discardImport(msg: ImportRefMessage, db = getPrisma()): Promise<{ ok: true }> {
  const job = await findImportJob(db, msg.tenant_id, msg.import_id);
  if (job && job.state === 'uploading') await deleteImportJob(db, job.id);
  return { ok: true };
}
