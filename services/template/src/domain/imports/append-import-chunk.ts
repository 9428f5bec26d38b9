import { AppError, ErrorCode, type ImportChunkMessage } from '@tm/contracts';
import { findImportJob, insertImportChunk } from '../../data-access/import-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';

/** Stores one chunk of an upload still being received. */
export async function appendImportChunk(msg: ImportChunkMessage, db = getPrisma()): Promise<{ ok: true }> {
  const job = await findImportJob(db, msg.tenant_id, msg.import_id);
  if (job?.state !== 'uploading') throw new AppError(ErrorCode.NotFound, 'No such upload in progress');
  await insertImportChunk(db, job.id, msg.seq, Buffer.from(msg.data, 'base64'));
  return { ok: true };
}
