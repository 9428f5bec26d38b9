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
  // A rollup minute goes once all of it is past retention (the records of it are then gone too).
  for (const table of ['request_rollup', 'latency_rollup']) {
    await run(
      `DELETE FROM ${table} WHERE minute + interval '1 minute' <= now() - make_interval(days => $1)`,
      [retentionDays],
    );
  }
  await run('DELETE FROM dropped_record_report WHERE reported_at < now() - make_interval(days => $1)', [
    retentionDays,
  ]);
  for (const table of ['usage_dead_letter', 'request_record_dead_letter']) {
    await run(`DELETE FROM ${table} WHERE dead_lettered_at < now() - make_interval(days => $1)`, [
      retentionDays,
    ]);
  }
  await pruneClearedAnomalies(run, retentionDays);
  return total;
}
