import type { AnomalyName, Threshold } from '@tm/contracts';
import type { TelemetryConfig } from '../config.js';

export interface AnomalyPolicy {
  thresholds: Record<AnomalyName, Threshold>;
  minRequests: number;
}

/** The deployment's thresholds, from its configuration. */
export function anomalyPolicy(c: TelemetryConfig): AnomalyPolicy {
  return {
    minRequests: c.ANOMALY_MIN_REQUESTS,
    thresholds: {
      error_rate: {
        warning: c.ANOMALY_ERROR_RATE_WARNING,
        critical: c.ANOMALY_ERROR_RATE_CRITICAL,
        unit: 'ratio',
        scope: 'tenant',
      },
      p95_latency: {
        warning: c.ANOMALY_P95_LATENCY_MS_WARNING,
        critical: c.ANOMALY_P95_LATENCY_MS_CRITICAL,
        unit: 'ms',
        scope: 'tenant',
      },
      blocked_rate: {
        warning: c.ANOMALY_BLOCKED_RATE_WARNING,
        critical: c.ANOMALY_BLOCKED_RATE_CRITICAL,
        unit: 'ratio',
        scope: 'tenant',
      },
      usage_dead_letters: {
        warning: c.ANOMALY_DEAD_LETTERS_WARNING,
        critical: c.ANOMALY_DEAD_LETTERS_CRITICAL,
        unit: 'count',
        scope: 'deployment',
      },
      dropped_request_records: {
        warning: c.ANOMALY_DROPPED_RECORDS_WARNING,
        critical: c.ANOMALY_DROPPED_RECORDS_CRITICAL,
        unit: 'count',
        scope: 'deployment',
      },
      request_record_dead_letters: {
        warning: c.ANOMALY_RECORD_DEAD_LETTERS_WARNING,
        critical: c.ANOMALY_RECORD_DEAD_LETTERS_CRITICAL,
        unit: 'count',
        scope: 'deployment',
      },
    },
  };
}
