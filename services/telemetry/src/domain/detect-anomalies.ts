import type { Anomaly, AnomalyName, AnomalyReport, TelemetryWindowMessage } from '@tm/contracts';
import type { SqlRunner } from '@tm/kit';
import { getSql } from '../data-access/prisma-client.js';
import { deploymentSignals } from '../data-access/window-aggregates.js';
import type { AnomalyPolicy } from './thresholds.js';
import { lookback, rate, roundMs } from './time-window.js';
import { ALL_OPERATIONS, windowStatistics } from './window-statistics.js';

const DESCRIBE: Record<AnomalyName, string> = {
  error_rate: 'Share of requests that failed (4xx other than blocked, and 5xx)',
  p95_latency: '95th percentile of request latency',
  blocked_rate: 'Share of requests refused (401, 403, 429)',
  usage_dead_letters: 'Usage records billing could not charge (deployment-wide)',
  dropped_request_records: 'Request records gateways dropped while the bus was away (deployment-wide)',
  request_record_dead_letters:
    'Request records telemetry could not store and dead-lettered, their batches stored (deployment-wide)',
};

/** The signals of one tenant's own requests; null where the window holds too few to judge. */
export type TenantSignals = Record<'error_rate' | 'p95_latency' | 'blocked_rate', number | null>;

/**
 * One tenant's signals over [from, to): rates and p95 wait for `minRequests` requests. Also the
 * window's request count (0: no data).
 */
export async function tenantSignals(
  run: SqlRunner,
  window: { tenantId: string; from: Date; to: Date },
  options: { minRequests: number; exactPercentilesUpTo: number },
): Promise<{ requests: number; observed: TenantSignals }> {
  const stats = await windowStatistics(run, window, options.exactPercentilesUpTo);
  const q = { requests: 0, errors: 0, blocked: 0 };
  for (const part of stats.parts) {
    q.requests += part.requests;
    q.errors += part.errors;
    q.blocked += part.blocked;
  }
  const p95 = stats.percentiles.get(ALL_OPERATIONS)?.[1];
  const enough = q.requests >= options.minRequests;
  return {
    requests: q.requests,
    observed: {
      error_rate: enough ? rate(q.errors, q.requests) : null,
      p95_latency: enough && p95 !== undefined ? roundMs(p95) : null,
      blocked_rate: enough ? rate(q.blocked, q.requests) : null,
    },
  };
}

/**
 * Each signal is compared with its thresholds: at or above critical is `critical`, at or above
 * warning is `warning`, below is no anomaly (a count of 0 never is one).
 */
export function judgeSignals(
  observed: Partial<Record<AnomalyName, number | null>>,
  policy: AnomalyPolicy,
  windowMinutes: number,
): Anomaly[] {
  const anomalies: Anomaly[] = [];
  for (const [name, value] of Object.entries(observed) as Array<[AnomalyName, number | null]>) {
    const t = policy.thresholds[name];
    if (value === null || value < t.warning || (t.unit === 'count' && value === 0)) continue;
    const severity = value >= t.critical ? 'critical' : 'warning';
    anomalies.push({
      name,
      severity,
      observed: value,
      threshold: severity === 'critical' ? t.critical : t.warning,
      unit: t.unit,
      scope: t.scope,
      window_minutes: windowMinutes,
      message: `${DESCRIBE[name]}: ${value} over the last ${windowMinutes} min is at or above the ${severity} threshold`,
    });
  }
  return anomalies;
}

/** The anomalies route: the tenant's signals and the deployment's, judged over the window asked for. */
export async function detectAnomalies(
  m: TelemetryWindowMessage,
  policy: AnomalyPolicy,
  options: { exactPercentilesUpTo: number },
): Promise<AnomalyReport> {
  const window = lookback(m.window_minutes);
  const run = getSql();
  const [tenant, deployment] = await Promise.all([
    tenantSignals(
      run,
      { tenantId: m.tenant_id, from: window.from, to: window.to },
      { minRequests: policy.minRequests, exactPercentilesUpTo: options.exactPercentilesUpTo },
    ),
    deploymentSignals(run, window.from, window.to),
  ]);
  const anomalies = judgeSignals(
    {
      ...tenant.observed,
      usage_dead_letters: deployment.deadLetters,
      dropped_request_records: deployment.dropped,
      request_record_dead_letters: deployment.recordDeadLetters,
    },
    policy,
    m.window_minutes,
  );
  return {
    state: tenant.requests === 0 ? 'no_data' : 'measured',
    window: window.report,
    anomaly_count: anomalies.length,
    anomalies,
    thresholds: policy.thresholds,
    min_requests: policy.minRequests,
  };
}
