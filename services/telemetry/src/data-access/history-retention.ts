import type { SqlRunner } from '@tm/kit';

/**
 * Delete what else of telemetry's history is past retention: rollup minutes wholly past it (their
 * records are gone by then too), gateways' drop reports, and both kinds of dead letter.
 */
export async function pruneHistoryBesideRecords(run: SqlRunner, retentionDays: number): Promise<void> {
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
}
