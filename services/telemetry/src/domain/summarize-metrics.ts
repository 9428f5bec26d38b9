import type { MetricsSummary, TelemetryWindowMessage } from '@tm/contracts';
import { getSql } from '../data-access/prisma-client.js';
import { type Counts, operationAggregates, versionCounts } from '../data-access/window-aggregates.js';
import { lookback, rate, roundMs } from './time-window.js';

const COUNT_KEYS = ['requests', 'accepted', 'errors', 'server_errors', 'timeouts', 'blocked'] as const;

/** Latency percentiles per operation, request quality and operation mix over a lookback window. */
export async function summarizeMetrics(m: TelemetryWindowMessage): Promise<MetricsSummary> {
  const window = lookback(m.window_minutes);
  const scope = { tenantId: m.tenant_id, from: window.from, to: window.to };
  const [operations, versions] = await Promise.all([
    operationAggregates(getSql(), scope),
    versionCounts(getSql(), scope),
  ]);
  const q = Object.fromEntries(
    COUNT_KEYS.map((k) => [k, operations.reduce((sum, o) => sum + o[k], 0)]),
  ) as unknown as Counts;
  return {
    state: q.requests === 0 ? 'no_data' : 'measured',
    window: window.report,
    latency: operations.map((o) => ({
      operation: o.operation,
      requests: o.requests,
      p50_ms: roundMs(o.percentiles[0]),
      p95_ms: roundMs(o.percentiles[1]),
      p99_ms: roundMs(o.percentiles[2]),
      max_ms: roundMs(o.max),
    })),
    quality: {
      ...q,
      error_rate: rate(q.errors, q.requests),
      timeout_rate: rate(q.timeouts, q.requests),
      blocked_rate: rate(q.blocked, q.requests),
    },
    operation_mix: operations.map((o) => ({
      operation: o.operation,
      requests: o.requests,
      share: rate(o.requests, q.requests),
    })),
    deployment_versions: versions,
  };
}
