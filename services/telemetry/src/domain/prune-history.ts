import { type Logger, startPeriodicTask } from '@tm/kit';
import { getSql } from '../data-access/prisma-client.js';
import { pruneClearedAnomalies } from '../data-access/raised-anomaly-repository.js';
import { pruneRecordsBefore } from '../data-access/request-record-repository.js';

const HOUR_MS = 60 * 60 * 1000;
const PRUNE_BATCH = 10_000;

/** Delete records past retention, in bounded batches so no statement holds locks for long. */
async function pruneOnce(retentionDays: number): Promise<number> {
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

/** Prune at start and every hour after; a failed pass is logged and tried again next hour. */
export function startRetention(retentionDays: number, logger: Logger) {
  return startPeriodicTask(
    'request record pruning',
    HOUR_MS,
    async () => {
      const n = await pruneOnce(retentionDays);
      if (n > 0) logger.info({ pruned: n, retention_days: retentionDays }, 'old request records pruned');
    },
    logger,
  );
}
