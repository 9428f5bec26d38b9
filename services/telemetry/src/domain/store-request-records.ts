import { failureGist } from '@tm/bus';
import { isStorageUnavailable, type SqlRunner } from '@tm/kit';
import { getSql } from '../data-access/prisma-client.js';
import { insertRecordDeadLetters } from '../data-access/record-dead-letter-repository.js';
import { insertDropReport, insertRecords } from '../data-access/request-record-repository.js';
import { type RecordDeadLetter, refusedRecordLetter, type SortedBatch } from './sort-request-records.js';

const recordsOf = (batch: SortedBatch, records = batch.records) =>
  records.map(({ record }) => ({ record, gatewayInstance: batch.gatewayInstance ?? '' }));

/**
 * Store sorted batches: every record in one statement (a redelivered one is skipped by its id), then
 * the dead letters and the drop reports. Returns the dead letters stored by this call.
 */
export async function storeBatches(
  batches: SortedBatch[],
  run: SqlRunner = getSql(),
): Promise<RecordDeadLetter[]> {
  await insertRecords(
    run,
    batches.flatMap((batch) => recordsOf(batch)),
  );
  const letters = batches.flatMap((b) => b.letters);
  const storedIds = await insertRecordDeadLetters(run, letters);
  for (const batch of batches) {
    if (batch.dropped > 0 && batch.gatewayInstance) {
      await insertDropReport(run, {
        messageId: batch.messageId,
        gatewayInstance: batch.gatewayInstance,
        dropped: batch.dropped,
      });
    }
  }
  return letters.filter((l) => storedIds.has(l.letterId));
}

/**
 * One batch whose statement failed for another reason than the database being down: its records one
 * by one, so a record the database refuses does not hold back the rest of its batch. A record refused
 * alone on the message's last delivery is dead-lettered; before that the refusal may be a passing
 * one, and the batch is not settled (its message comes back, and what was stored is skipped). A
 * database that is down throws.
 */
export async function storeOneByOne(
  batch: SortedBatch,
  lastDelivery: boolean,
  run: SqlRunner = getSql(),
): Promise<{ settled: boolean; stored: RecordDeadLetter[] }> {
  const letters = [...batch.letters];
  let settled = true;
  for (const entry of batch.records) {
    try {
      await insertRecords(run, recordsOf(batch, [entry]));
    } catch (err) {
      if (isStorageUnavailable(err)) throw err;
      if (lastDelivery) letters.push(refusedRecordLetter(batch, entry, failureGist(err)));
      else settled = false;
    }
  }
  const stored = await storeBatches([{ ...batch, records: [], letters }], run);
  return { settled, stored };
}
