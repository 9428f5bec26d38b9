import type { Anomaly, AnomalyName, AnomalyReport, TelemetryWindowMessage } from '@tm/contracts';
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

/**
 * Each signal is compared with its thresholds: at or above critical is `critical`, at or above
 * warning is `warning`, below is no anomaly. Rates and p95 wait for `minRequests` requests.
 */
export async function detectAnomalies(
  m: TelemetryWindowMessage,
  policy: AnomalyPolicy,
  options: { exactPercentilesUpTo: number },
): Promise<AnomalyReport> {
  const window = lookback(m.window_minutes);
  const run = getSql();
  const [stats, deployment] = await Promise.all([
    windowStatistics(
      run,
      { tenantId: m.tenant_id, from: window.from, to: window.to },
      options.exactPercentilesUpTo,
    ),
    deploymentSignals(run, window.from, window.to),
  ]);
  const q = { requests: 0, errors: 0, blocked: 0 };
  for (const part of stats.parts) {
    q.requests += part.requests;
    q.errors += part.errors;
    q.blocked += part.blocked;
  }
  const p95 = stats.percentiles.get(ALL_OPERATIONS)?.[1];
  const enough = q.requests >= policy.minRequests;
  const observed: Record<AnomalyName, number | null> = {
    error_rate: enough ? rate(q.errors, q.requests) : null,
    p95_latency: enough && p95 !== undefined ? roundMs(p95) : null,
    blocked_rate: enough ? rate(q.blocked, q.requests) : null,
    usage_dead_letters: deployment.deadLetters,
    dropped_request_records: deployment.dropped,
    request_record_dead_letters: deployment.recordDeadLetters,
  };
  const anomalies: Anomaly[] = [];
  for (const name of Object.keys(observed) as AnomalyName[]) {
    const value = observed[name];
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
      window_minutes: m.window_minutes,
      message: `${DESCRIBE[name]}: ${value} over the last ${m.window_minutes} min is at or above the ${severity} threshold`,
    });
  }
  return {
    state: q.requests === 0 ? 'no_data' : 'measured',
    window: window.report,
    anomaly_count: anomalies.length,
    anomalies,
    thresholds: policy.thresholds,
    min_requests: policy.minRequests,
  };
}
