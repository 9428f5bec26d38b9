import type { Logger } from '@tm/kit';
import { getSql } from '../data-access/prisma-client.js';

const HOUR_MS = 60 * 60 * 1000;

/** Delete records past retention, in bounded batches so no statement holds locks for long. */
async function pruneOnce(retentionDays: number): Promise<number> {
  const run = getSql();
  let total = 0;
  for (;;) {
    const rows = await run<{ n: number }>(
      `WITH gone AS (
         DELETE FROM request_record WHERE record_id IN (
           SELECT record_id FROM request_record WHERE occurred_at < now() - make_interval(days => $1) LIMIT 10000)
         RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [retentionDays],
    );
    const n = rows[0]?.n ?? 0;
    total += n;
    if (n < 10_000) break;
  }
  await run('DELETE FROM dropped_record_report WHERE reported_at < now() - make_interval(days => $1)', [
    retentionDays,
  ]);
  await run('DELETE FROM usage_dead_letter WHERE dead_lettered_at < now() - make_interval(days => $1)', [
    retentionDays,
  ]);
  return total;
}

/** Prune at start and every hour after; a failed pass is logged and tried again next hour. */
export function startRetention(retentionDays: number, logger: Logger) {
  const pass = () =>
    pruneOnce(retentionDays).then(
      (n) => n > 0 && logger.info({ pruned: n, retention_days: retentionDays }, 'old request records pruned'),
      (err) => logger.warn({ err }, 'request record pruning failed; next pass in an hour'),
    );
  let current = pass();
  const timer = setInterval(() => {
    current = pass();
  }, HOUR_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await current;
    },
  };
}
