import type { SqlRunner } from '@tm/kit';

interface Counts {
  requests: number;
  accepted: number;
  errors: number;
  server_errors: number;
  timeouts: number;
  blocked: number;
}

/** Aggregates of one tenant's records over [from, to): the inputs of metrics and anomalies. */
export interface WindowAggregates {
  operations: Array<Counts & { operation: string; p50: number; p95: number; p99: number; max: number }>;
  quality: Counts & { p95: number | null };
  deploymentVersions: Array<{ deployment_version: string; requests: number }>;
}

type Row = Counts & {
  operation: string | null;
  deployment_version: string | null;
  by_operation: boolean;
  by_version: boolean;
  percentiles: [number, number, number] | null;
  max: number | null;
};

/**
 * One pass over the window: grouping sets give the per-operation rows, the per-version rows and the
 * total at once, and each percentile triple comes from one sort (percentile_cont over an array).
 * Non-memory routes have no operation name: they are reported as "METHOD /route".
 */
const AGGREGATE = `
  SELECT coalesce(operation, method || ' ' || route) AS operation, deployment_version,
         GROUPING(coalesce(operation, method || ' ' || route)) = 0 AS by_operation,
         GROUPING(deployment_version) = 0 AS by_version,
         count(*)::int AS requests,
         count(*) FILTER (WHERE outcome = 'accepted')::int AS accepted,
         count(*) FILTER (WHERE outcome = 'failed')::int AS errors,
         count(*) FILTER (WHERE status >= 500)::int AS server_errors,
         count(*) FILTER (WHERE error_code = 'upstream_timeout')::int AS timeouts,
         count(*) FILTER (WHERE outcome = 'blocked')::int AS blocked,
         percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY latency_ms) AS percentiles,
         max(latency_ms) AS max
    FROM request_record
   WHERE tenant_id = $1 AND occurred_at >= $2 AND occurred_at < $3
   GROUP BY GROUPING SETS ((coalesce(operation, method || ' ' || route)), (deployment_version), ())`;

const EMPTY: Counts = { requests: 0, accepted: 0, errors: 0, server_errors: 0, timeouts: 0, blocked: 0 };

export async function windowAggregates(
  run: SqlRunner,
  tenantId: string,
  from: Date,
  to: Date,
): Promise<WindowAggregates> {
  const rows = await run<Row>(AGGREGATE, [tenantId, from, to]);
  const counts = (r: Row): Counts => ({
    requests: r.requests,
    accepted: r.accepted,
    errors: r.errors,
    server_errors: r.server_errors,
    timeouts: r.timeouts,
    blocked: r.blocked,
  });
  const total = rows.find((r) => !r.by_operation && !r.by_version);
  const byRequests = (a: { requests: number; name: string }, b: { requests: number; name: string }) =>
    b.requests - a.requests || (a.name < b.name ? -1 : 1);
  return {
    operations: rows
      .filter((r) => r.by_operation)
      .map((r) => ({
        ...counts(r),
        operation: r.operation ?? '',
        p50: r.percentiles?.[0] ?? 0,
        p95: r.percentiles?.[1] ?? 0,
        p99: r.percentiles?.[2] ?? 0,
        max: r.max ?? 0,
      }))
      .sort((a, b) => byRequests({ ...a, name: a.operation }, { ...b, name: b.operation })),
    quality: total ? { ...counts(total), p95: total.percentiles?.[1] ?? null } : { ...EMPTY, p95: null },
    deploymentVersions: rows
      .filter((r) => r.by_version)
      .map((r) => ({ deployment_version: r.deployment_version ?? '', requests: r.requests }))
      .sort((a, b) => byRequests({ ...a, name: a.deployment_version }, { ...b, name: b.deployment_version })),
  };
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
