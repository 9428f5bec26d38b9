import { AppError, ErrorCode, type RestoreRowsMessage } from '@tm/contracts';
import { findImportJob, insertImportRows } from '../../data-access/import-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';

/** Stores rows of a restore still being filled; a resent message's rows are kept once. */
export async function appendRestoreRows(msg: RestoreRowsMessage, db = getPrisma()): Promise<{ ok: true }> {
  const job = await findImportJob(db, msg.tenant_id, msg.restore_id, 'restore');
  if (job?.state !== 'uploading') throw new AppError(ErrorCode.NotFound, 'No such restore being filled');
  await insertImportRows(
    db,
    msg.rows.map((row, i) => ({
      importId: job.id,
      rowNumber: msg.first_row + i,
      values: row,
      eventId: row.event.event_id ?? null,
      state: 'pending',
    })),
  );
  return { ok: true };
}
