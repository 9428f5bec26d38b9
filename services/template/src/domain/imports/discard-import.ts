import type { ImportRefMessage } from '@tm/contracts';
import { deleteUploadingJob } from '../../data-access/import-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';

/**
 * A refused upload (too large, stalled) leaves nothing behind: its job, chunks and rows go. So does a
 * restore whose records could not all be sent: either kind, while it is still `uploading`.
 */
export async function discardImport(msg: ImportRefMessage, db = getPrisma()): Promise<{ ok: true }> {
  await deleteUploadingJob(db, msg.tenant_id, msg.import_id);
  return { ok: true };
}
