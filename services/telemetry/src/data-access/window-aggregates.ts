import type { SqlRunner } from '@tm/kit';

/** Aggregates of one tenant's records over [from, to): the inputs of metrics and anomalies. */
export interface WindowAggregates {
  operations: Array<{
    operation: string;
    requests: number;
    p50: number;
    p95: number;
    p99: number;
    max: number;
  }>;
  quality: {
    requests: number;
    accepted: number;
    errors: number;
    server_errors: number;
    timeouts: number;
    blocked: number;
    p95: number | null;
  };
  deploymentVersions: Array<{ deployment_version: string; requests: number }>;
}

// Non-memory routes have no operation name: they are reported as "METHOD /route".
const OPERATION = `coalesce(operation, method || ' ' || route)`;

export async function windowAggregates(
  run: SqlRunner,
  tenantId: string,
  from: Date,
  to: Date,
): Promise<WindowAggregates> {
  const scope = 'tenant_id = $1 AND occurred_at >= $2 AND occurred_at < $3';
  const params = [tenantId, from, to];
  const [operations, quality, deploymentVersions] = await Promise.all([
    run<WindowAggregates['operations'][number]>(
      `SELECT ${OPERATION} AS operation, count(*)::int AS requests,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95,
              percentile_cont(0.99) WITHIN GROUP (ORDER BY latency_ms) AS p99,
              max(latency_ms) AS max
         FROM request_record WHERE ${scope}
        GROUP BY 1 ORDER BY requests DESC, operation`,
      params,
    ),
    run<WindowAggregates['quality']>(
      `SELECT count(*)::int AS requests,
              count(*) FILTER (WHERE outcome = 'accepted')::int AS accepted,
              count(*) FILTER (WHERE outcome = 'failed')::int AS errors,
              count(*) FILTER (WHERE status >= 500)::int AS server_errors,
              count(*) FILTER (WHERE error_code = 'upstream_timeout')::int AS timeouts,
              count(*) FILTER (WHERE outcome = 'blocked')::int AS blocked,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95
         FROM request_record WHERE ${scope}`,
      params,
    ),
    run<WindowAggregates['deploymentVersions'][number]>(
      `SELECT deployment_version, count(*)::int AS requests FROM request_record WHERE ${scope}
        GROUP BY 1 ORDER BY requests DESC, deployment_version`,
      params,
    ),
  ]);
  return {
    operations,
    quality: quality[0] ?? {
      requests: 0,
      accepted: 0,
      errors: 0,
      server_errors: 0,
      timeouts: 0,
      blocked: 0,
      p95: null,
    },
    deploymentVersions,
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
