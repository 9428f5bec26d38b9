import { AppError, ErrorCode, type ImportChunkMessage } from '@tm/contracts';
import { findImportJob, insertImportChunk } from '../data-access/import-repository.js';

/** Stores one chunk of an upload still being received. */
export async function appendImportChunk(msg: ImportChunkMessage): Promise<{ ok: true }> {
  const job = await findImportJob(msg.tenant_id, msg.import_id);
  if (job?.state !== 'uploading') throw new AppError(ErrorCode.NotFound, 'No such upload in progress');
  await insertImportChunk(job.id, msg.seq, Buffer.from(msg.data, 'base64'));
  return { ok: true };
}
