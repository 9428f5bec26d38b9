import { pruneHistoryBesideRecords } from '../data-access/history-retention.js';
import { getSql } from '../data-access/prisma-client.js';
import { pruneClearedAnomalies } from '../data-access/raised-anomaly-repository.js';
import { pruneRecordsBefore } from '../data-access/request-record-repository.js';

const PRUNE_BATCH = 10_000;

/**
 * Delete records past retention, in bounded batches so no statement holds locks for long, and what
 * else of telemetry's history is as old. Returns how many request records went.
 */
export async function pruneHistory(retentionDays: number): Promise<number> {
  const run = getSql();
  let total = 0;
  for (;;) {
    const n = await pruneRecordsBefore(run, retentionDays, PRUNE_BATCH);
    total += n;
    if (n < PRUNE_BATCH) break;
  }
  await pruneHistoryBesideRecords(run, retentionDays);
  await pruneClearedAnomalies(run, retentionDays);
  return total;
}
