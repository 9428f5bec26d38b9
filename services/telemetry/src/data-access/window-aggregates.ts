import type { SqlRunner } from '@tm/kit';

/** Counts of one tenant's records in a window, by outcome. */
export interface Counts {
  requests: number;
  accepted: number;
  errors: number;
  server_errors: number;
  timeouts: number;
  blocked: number;
}

export interface Window {
  tenantId: string;
  from: Date;
  to: Date;
}

const IN_WINDOW = 'tenant_id = $1 AND occurred_at >= $2 AND occurred_at < $3';
const params = (w: Window) => [w.tenantId, w.from, w.to];

const COUNTS = `count(*)::int AS requests,
  count(*) FILTER (WHERE outcome = 'accepted')::int AS accepted,
  count(*) FILTER (WHERE outcome = 'failed')::int AS errors,
  count(*) FILTER (WHERE status >= 500)::int AS server_errors,
  count(*) FILTER (WHERE error_code = 'upstream_timeout')::int AS timeouts,
  count(*) FILTER (WHERE outcome = 'blocked')::int AS blocked`;

/**
 * Per operation: counts and latency percentiles (one sort per operation: percentile_cont over an
 * array). Non-memory routes have no operation name: they are reported as "METHOD /route".
 */
export function operationAggregates(run: SqlRunner, w: Window) {
  return run<Counts & { operation: string; percentiles: [number, number, number]; max: number }>(
    `SELECT coalesce(operation, method || ' ' || route) AS operation, ${COUNTS},
            percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY latency_ms) AS percentiles,
            max(latency_ms) AS max
       FROM request_record WHERE ${IN_WINDOW}
      GROUP BY 1 ORDER BY requests DESC, operation`,
    params(w),
  );
}

/** Requests per deployment version that answered them. */
export function versionCounts(run: SqlRunner, w: Window) {
  return run<{ deployment_version: string; requests: number }>(
    `SELECT deployment_version, count(*)::int AS requests FROM request_record WHERE ${IN_WINDOW}
      GROUP BY 1 ORDER BY requests DESC, deployment_version`,
    params(w),
  );
}

/** The window's totals and its p95 over every request: the inputs of the tenant's anomalies. */
export async function qualityAggregates(run: SqlRunner, w: Window): Promise<Counts & { p95: number | null }> {
  const [row] = await run<Counts & { p95: number | null }>(
    `SELECT ${COUNTS}, percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95
       FROM request_record WHERE ${IN_WINDOW}`,
    params(w),
  );
  return row ?? { requests: 0, accepted: 0, errors: 0, server_errors: 0, timeouts: 0, blocked: 0, p95: null };
}

/** Deployment-wide counts over [from, to): dead-lettered usage records and dropped request records. */
export async function deploymentSignals(
  run: SqlRunner,
  from: Date,
  to: Date,
): Promise<{ deadLetters: number; dropped: number }> {
  const [row] = await run<{ dead_letters: number; dropped: number }>(
    `SELECT (SELECT count(*) FROM usage_dead_letter WHERE dead_lettered_at >= $1 AND dead_lettered_at < $2)::int
              AS dead_letters,
            (SELECT coalesce(sum(dropped), 0) FROM dropped_record_report WHERE reported_at >= $1 AND reported_at < $2)::int
              AS dropped`,
    [from, to],
  );
  return { deadLetters: row?.dead_letters ?? 0, dropped: row?.dropped ?? 0 };
}
