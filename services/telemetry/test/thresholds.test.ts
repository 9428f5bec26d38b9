import { describe, expect, it } from 'vitest';
import { loadTelemetryConfig } from '../src/config.js';
import { anomalyPolicy } from '../src/domain/thresholds.js';

describe('anomalyPolicy', () => {
  it('when the deployment sets no thresholds, then the policy is the documented table: three tenant signals and three deployment-wide counts', () => {
    // Act
    const policy = anomalyPolicy(loadTelemetryConfig({}));

    // Assert: docs/decisions/telemetry.md, "Anomalies".
    expect(policy).toEqual({
      minRequests: 10,
      thresholds: {
        error_rate: { warning: 0.05, critical: 0.25, unit: 'ratio', scope: 'tenant' },
        p95_latency: { warning: 1_000, critical: 5_000, unit: 'ms', scope: 'tenant' },
        blocked_rate: { warning: 0.25, critical: 0.5, unit: 'ratio', scope: 'tenant' },
        usage_dead_letters: { warning: 1, critical: 25, unit: 'count', scope: 'deployment' },
        dropped_request_records: { warning: 1, critical: 1_000, unit: 'count', scope: 'deployment' },
        request_record_dead_letters: { warning: 1, critical: 100, unit: 'count', scope: 'deployment' },
      },
    });
  });

  it('when the deployment sets each threshold, then each lands on its own signal and no other', () => {
    // Arrange: every value distinct, so a crossed wire shows.
    const config = loadTelemetryConfig({
      ANOMALY_ERROR_RATE_WARNING: '0.11',
      ANOMALY_ERROR_RATE_CRITICAL: '0.12',
      ANOMALY_P95_LATENCY_MS_WARNING: '210',
      ANOMALY_P95_LATENCY_MS_CRITICAL: '220',
      ANOMALY_BLOCKED_RATE_WARNING: '0.31',
      ANOMALY_BLOCKED_RATE_CRITICAL: '0.32',
      ANOMALY_DEAD_LETTERS_WARNING: '41',
      ANOMALY_DEAD_LETTERS_CRITICAL: '42',
      ANOMALY_DROPPED_RECORDS_WARNING: '51',
      ANOMALY_DROPPED_RECORDS_CRITICAL: '52',
      ANOMALY_RECORD_DEAD_LETTERS_WARNING: '61',
      ANOMALY_RECORD_DEAD_LETTERS_CRITICAL: '62',
      ANOMALY_MIN_REQUESTS: '7',
    });

    // Act
    const policy = anomalyPolicy(config);

    // Assert
    expect(policy.minRequests).toBe(7);
    expect(
      Object.fromEntries(
        Object.entries(policy.thresholds).map(([name, t]) => [name, [t.warning, t.critical]]),
      ),
    ).toEqual({
      error_rate: [0.11, 0.12],
      p95_latency: [210, 220],
      blocked_rate: [0.31, 0.32],
      usage_dead_letters: [41, 42],
      dropped_request_records: [51, 52],
      request_record_dead_letters: [61, 62],
    });
  });
});
