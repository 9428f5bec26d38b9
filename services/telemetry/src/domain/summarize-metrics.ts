import { type MetricsMessage, type MetricsSummary, resolveBucketMinutes } from '@tm/contracts';
import { getSql } from '../data-access/prisma-client.js';
import type { Counts } from '../data-access/window-aggregates.js';
import { metricsSeries } from './metrics-series.js';
import { lookback, rate, roundMs } from './time-window.js';
import { windowStatistics } from './window-statistics.js';

const COUNT_KEYS = ['requests', 'accepted', 'errors', 'server_errors', 'timeouts', 'blocked'] as const;

const zero = (): Counts => ({
  requests: 0,
  accepted: 0,
  errors: 0,
  server_errors: 0,
  timeouts: 0,
  blocked: 0,
});

function add(into: Counts, part: Counts) {
  for (const k of COUNT_KEYS) into[k] += part[k];
}

/**
 * Latency percentiles per operation, request quality and operation mix over a lookback window, and the
 * window as a series of buckets for charts.
 */
export async function summarizeMetrics(
  m: MetricsMessage,
  options: { exactPercentilesUpTo: number },
): Promise<MetricsSummary> {
  const window = lookback(m.window_minutes);
  const w = { tenantId: m.tenant_id, from: window.from, to: window.to };
  const stats = await windowStatistics(getSql(), w, options.exactPercentilesUpTo);
  const q = zero();
  const operations = new Map<string, Counts & { max: number }>();
  const versions = new Map<string, number>();
  for (const part of stats.parts) {
    add(q, part);
    const op = operations.get(part.operation) ?? { ...zero(), max: 0 };
    add(op, part);
    op.max = Math.max(op.max, part.max);
    operations.set(part.operation, op);
    versions.set(part.deployment_version, (versions.get(part.deployment_version) ?? 0) + part.requests);
  }
  const byRequests = <T extends { requests: number }>(a: [string, T], b: [string, T]) =>
    b[1].requests - a[1].requests || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  const ordered = [...operations].sort(byRequests);
  const bucketMinutes = resolveBucketMinutes(m);
  const series = await metricsSeries(
    getSql(),
    { ...w, requests: q.requests },
    bucketMinutes,
    stats.exactPercentiles,
  );
  return {
    state: q.requests === 0 ? 'no_data' : 'measured',
    window: window.report,
    percentiles: stats.exactPercentiles ? 'exact' : 'histogram',
    latency: ordered.map(([operation, o]) => {
      const [p50, p95, p99] = stats.percentiles.get(operation) ?? [0, 0, 0];
      return {
        operation,
        requests: o.requests,
        p50_ms: roundMs(p50),
        p95_ms: roundMs(p95),
        p99_ms: roundMs(p99),
        max_ms: roundMs(o.max),
      };
    }),
    quality: {
      ...q,
      error_rate: rate(q.errors, q.requests),
      timeout_rate: rate(q.timeouts, q.requests),
      blocked_rate: rate(q.blocked, q.requests),
    },
    operation_mix: ordered.map(([operation, o]) => ({
      operation,
      requests: o.requests,
      share: rate(o.requests, q.requests),
    })),
    deployment_versions: [...versions]
      .map(([deployment_version, requests]) => ({ deployment_version, requests }))
      .sort((a, b) => byRequests([a.deployment_version, a], [b.deployment_version, b])),
    bucket_minutes: bucketMinutes,
    series,
  };
}
