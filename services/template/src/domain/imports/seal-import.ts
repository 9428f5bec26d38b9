import { Readable } from 'node:stream';
import { AppError, ErrorCode, type ImportJob, type ImportRefMessage } from '@tm/contracts';
import type { ReadWritePrice } from '../../clients/billing-prices.js';
import type { Prisma } from '../../data-access/generated/client.js';
import {
  deleteImportJob,
  findImportJob,
  insertImportRows,
  markImportEstimated,
  readImportChunks,
} from '../../data-access/import-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { parseFormat } from './format-string.js';
import { withImportErrors } from './import-error-to-app-error.js';
import { createImportEstimateTally } from './import-estimate-tally.js';
import { importJobView } from './import-job-view.js';
import { detectFormat, SNIFF_BYTES } from './parsing/detect-format.js';
import type { ImportLimits } from './parsing/import-limits.js';
import { peekStreamHead } from './parsing/peek-stream-head.js';
import { readImportRecords } from './parsing/read-import-records.js';
import type { ReadSlots } from './parsing/read-slots.js';

const INSERT_BATCH = 500;

/**
 * The upload is complete: read it (streaming from its stored chunks), store every row as `pending`
 * and answer the estimate. A row the reader could not use is stored without values and fails when
 * the job runs, so it is reported with the others. A file that cannot be read at all is refused
 * (malformed_file) and leaves nothing behind.
 */
export async function sealImport(
  msg: ImportRefMessage,
  deps: { price: ReadWritePrice; limits: ImportLimits; readSlots: ReadSlots },
  db = getPrisma(),
): Promise<ImportJob> {
  const job = await findImportJob(db, msg.tenant_id, msg.import_id);
  if (!job) throw new AppError(ErrorCode.NotFound, 'No such import');
  if (job.state !== 'uploading') return importJobView(job, db); // a retried seal answers the same job
  const fileName = job.fileName;
  if (fileName === null) throw new AppError(ErrorCode.NotFound, 'No such upload'); // a dataset import
  const release = deps.readSlots.tryAcquire();
  if (!release) {
    await deleteImportJob(db, job.id);
    throw new AppError(
      ErrorCode.TooManyImports,
      'The service is reading as many uploads as it can at once; retry in a few seconds',
      { retryAfter: 5 },
    );
  }
  try {
    // Billing's price, asked before the file is read: without it there is no estimate to answer.
    const price = await deps.price();
    const estimate = await withImportErrors(async () => {
      const parsed = parseFormat(job.format);
      const tally = createImportEstimateTally(parsed);
      const { head, stream } = await peekStreamHead(Readable.from(readImportChunks(db, job.id)), SNIFF_BYTES);
      const records = readImportRecords(detectFormat(fileName, head), stream, deps.limits);
      let batch: Prisma.ImportRowCreateManyInput[] = [];
      for await (const record of records) {
        tally.add(record);
        batch.push(
          record.ok
            ? {
                importId: job.id,
                rowNumber: record.row,
                values: record.values as Prisma.InputJsonValue,
                state: 'pending',
              }
            : {
                importId: job.id,
                rowNumber: record.row,
                state: 'pending',
                reason: 'malformed_row',
                message: record.error,
              },
        );
        if (batch.length >= INSERT_BATCH) {
          await insertImportRows(db, batch);
          batch = [];
        }
      }
      if (batch.length > 0) await insertImportRows(db, batch);
      return tally.result(price);
    });
    await markImportEstimated(db, job.id, estimate);
  } catch (err) {
    await deleteImportJob(db, job.id);
    throw err;
  } finally {
    release();
  }
  const sealed = await findImportJob(db, msg.tenant_id, msg.import_id);
  if (!sealed) throw new AppError(ErrorCode.NotFound, 'No such import');
  return importJobView(sealed, db);
}
