import type { MetricsSummary, TelemetryWindowMessage } from '@tm/contracts';
import { getSql } from '../data-access/prisma-client.js';
import { windowAggregates } from '../data-access/window-aggregates.js';
import { lookback, rate, roundMs } from './time-window.js';

/** Latency percentiles per operation, request quality and operation mix over a lookback window. */
export async function summarizeMetrics(m: TelemetryWindowMessage): Promise<MetricsSummary> {
  const window = lookback(m.window_minutes);
  const a = await windowAggregates(getSql(), m.tenant_id, window.from, window.to);
  const q = a.quality;
  return {
    state: q.requests === 0 ? 'no_data' : 'measured',
    window: window.report,
    latency: a.operations.map((o) => ({
      operation: o.operation,
      requests: o.requests,
      p50_ms: roundMs(o.p50),
      p95_ms: roundMs(o.p95),
      p99_ms: roundMs(o.p99),
      max_ms: roundMs(o.max),
    })),
    quality: {
      requests: q.requests,
      accepted: q.accepted,
      errors: q.errors,
      server_errors: q.server_errors,
      timeouts: q.timeouts,
      blocked: q.blocked,
      error_rate: rate(q.errors, q.requests),
      timeout_rate: rate(q.timeouts, q.requests),
      blocked_rate: rate(q.blocked, q.requests),
    },
    operation_mix: a.operations.map((o) => ({
      operation: o.operation,
      requests: o.requests,
      share: rate(o.requests, q.requests),
    })),
    deployment_versions: a.deploymentVersions,
  };
}
