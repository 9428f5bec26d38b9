import { randomUUID } from 'node:crypto';
import type { AnomalyName, Threshold } from '@tm/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTelemetryConfig } from '../src/config.js';
import { getSql } from '../src/data-access/prisma-client.js';
import { insertRecordDeadLetters } from '../src/data-access/record-dead-letter-repository.js';
import { insertDeadLetter, insertDropReport } from '../src/data-access/request-record-repository.js';
import { detectAnomalies, judgeSignals, tenantSignals } from '../src/domain/detect-anomalies.js';
import { type AnomalyPolicy, anomalyPolicy } from '../src/domain/thresholds.js';
import { percentileCont, record, store, uniqueTenant, within1Percent } from './support/factories.js';
import { ownDatabase } from './support/own-database.js';

// A database of this file's own: deployment-wide signals count every dead letter and drop report of
// the window, whoever stored it.
const db = ownDatabase('detect_anomalies');
beforeAll(() => db.open());
afterAll(() => db.close());

/** Thresholds as an e2e stack of this service sets them, so a bound is easy to land on. */
const policy: AnomalyPolicy = anomalyPolicy(
  loadTelemetryConfig({
    ANOMALY_ERROR_RATE_WARNING: '0.2',
    ANOMALY_ERROR_RATE_CRITICAL: '0.6',
    ANOMALY_BLOCKED_RATE_WARNING: '0.25',
    ANOMALY_BLOCKED_RATE_CRITICAL: '0.5',
    ANOMALY_P95_LATENCY_MS_WARNING: '1000',
    ANOMALY_P95_LATENCY_MS_CRITICAL: '5000',
    ANOMALY_DROPPED_RECORDS_WARNING: '1',
    ANOMALY_DROPPED_RECORDS_CRITICAL: '500',
    ANOMALY_MIN_REQUESTS: '10',
  }),
);

describe('judgeSignals', () => {
  it.each([
    ['below warning', 0.19, null],
    ['exactly at warning', 0.2, { severity: 'warning', threshold: 0.2 }],
    ['between the two', 0.59, { severity: 'warning', threshold: 0.2 }],
    ['exactly at critical', 0.6, { severity: 'critical', threshold: 0.6 }],
    ['above critical', 1, { severity: 'critical', threshold: 0.6 }],
  ] as const)('when the error rate is %s (%d), then %j', (_, observed, expected) => {
    // Act
    const anomalies = judgeSignals({ error_rate: observed }, policy, 15);

    // Assert
    expect(anomalies).toEqual(
      expected === null
        ? []
        : [
            {
              name: 'error_rate',
              ...expected,
              observed,
              unit: 'ratio',
              scope: 'tenant',
              window_minutes: 15,
              message: `Share of requests that failed (4xx other than blocked, and 5xx): ${observed} over the last 15 min is at or above the ${expected.severity} threshold`,
            },
          ],
    );
  });

  it('when a tenant signal is null (too few requests to judge), then it raises nothing whatever the thresholds', () => {
    // Act
    const anomalies = judgeSignals({ error_rate: null, p95_latency: null, blocked_rate: null }, policy, 5);

    // Assert
    expect(anomalies).toEqual([]);
  });

  it('when a deployment count is 0, then it is no anomaly, even where its warning is set to 0', () => {
    // Arrange
    const zeroWarning: AnomalyPolicy = {
      ...policy,
      thresholds: {
        ...policy.thresholds,
        usage_dead_letters: { warning: 0, critical: 0, unit: 'count', scope: 'deployment' },
      },
    };

    // Act
    const none = judgeSignals({ usage_dead_letters: 0 }, zeroWarning, 5);
    const one = judgeSignals({ usage_dead_letters: 1 }, zeroWarning, 5);

    // Assert
    expect(none).toEqual([]);
    expect(one).toMatchObject([{ name: 'usage_dead_letters', severity: 'critical', scope: 'deployment' }]);
  });

  it('when several signals cross, then each is reported on its own with its unit and scope, and only the signals given are judged', () => {
    // Act
    const anomalies = judgeSignals(
      { p95_latency: 5_000, blocked_rate: 0.3, dropped_request_records: 1 },
      policy,
      60,
    );

    // Assert
    expect(anomalies.map(({ message: _, ...a }) => a)).toEqual([
      {
        name: 'p95_latency',
        severity: 'critical',
        observed: 5_000,
        threshold: 5_000,
        unit: 'ms',
        scope: 'tenant',
        window_minutes: 60,
      },
      {
        name: 'blocked_rate',
        severity: 'warning',
        observed: 0.3,
        threshold: 0.25,
        unit: 'ratio',
        scope: 'tenant',
        window_minutes: 60,
      },
      {
        name: 'dropped_request_records',
        severity: 'warning',
        observed: 1,
        threshold: 1,
        unit: 'count',
        scope: 'deployment',
        window_minutes: 60,
      },
    ]);
  });

  it('when any value meets any ordered pair of thresholds, then below warning is nothing, from warning warning, from critical critical, each naming the threshold it crossed', () => {
    const names: AnomalyName[] = ['error_rate', 'p95_latency', 'usage_dead_letters'];
    fc.assert(
      fc.property(
        fc.constantFrom(...names),
        fc.integer({ min: 0, max: 1_000 }),
        fc.integer({ min: 0, max: 1_000 }),
        fc.oneof(
          fc.constantFrom('warning', 'critical', 'below warning', 'below critical'),
          fc.integer({ min: 0, max: 1_200 }),
        ),
        (name, a, b, pick) => {
          // Arrange: values on and next to the bounds as often as anywhere else.
          const [warning, critical] = a <= b ? [a, b] : [b, a];
          const value =
            pick === 'warning'
              ? warning
              : pick === 'critical'
                ? critical
                : pick === 'below warning'
                  ? warning - 0.001
                  : pick === 'below critical'
                    ? critical - 0.001
                    : pick;
          const t: Threshold = { ...policy.thresholds[name], warning, critical };
          const judged: AnomalyPolicy = { ...policy, thresholds: { ...policy.thresholds, [name]: t } };

          // Act
          const [anomaly, ...more] = judgeSignals({ [name]: value }, judged, 15);

          // Assert
          expect(more).toEqual([]);
          if (value < warning || (t.unit === 'count' && value === 0)) expect(anomaly).toBeUndefined();
          else if (value >= critical)
            expect(anomaly).toMatchObject({ severity: 'critical', threshold: critical });
          else expect(anomaly).toMatchObject({ severity: 'warning', threshold: warning });
        },
      ),
    );
  });
});

const FROM = new Date('2026-11-20T23:58:00.000Z');
const TO = new Date('2026-11-21T00:03:00.000Z');
const inWindow = (i: number) => new Date(FROM.getTime() + 1_000 + i * 7_000).toISOString();
const OPTIONS = { minRequests: 10, exactPercentilesUpTo: 10_000 };

describe('tenantSignals', () => {
  it('when the window holds one request fewer than the minimum, then no rate or p95 is judged; at the minimum, they are', async () => {
    // Arrange: every request failed and slow.
    const tenantId = uniqueTenant();
    await store(
      Array.from({ length: 9 }, (_, i) =>
        record(tenantId, { latency_ms: 9_000, status: 500, occurred_at: inWindow(i) }),
      ),
    );
    const w = { tenantId, from: FROM, to: TO };

    // Act
    const few = await tenantSignals(getSql(), w, OPTIONS);
    await store([record(tenantId, { latency_ms: 9_000, status: 500, occurred_at: inWindow(9) })]);
    const enough = await tenantSignals(getSql(), w, OPTIONS);

    // Assert
    expect(few).toEqual({
      requests: 9,
      observed: { error_rate: null, p95_latency: null, blocked_rate: null },
    });
    expect(enough).toEqual({
      requests: 10,
      observed: { error_rate: 1, p95_latency: 9_000, blocked_rate: 0 },
    });
  });

  it('when requests fail and are refused across midnight, then error and blocked rates are their shares of the window, and p95 is over every request', async () => {
    // Arrange: 20 requests; 4 failed (a 400, a 499, a 500, a 504), 5 refused (401, 403, 429 ×3).
    const tenantId = uniqueTenant();
    const statuses = [400, 499, 500, 504, 401, 403, 429, 429, 429];
    const latencies = Array.from({ length: 20 }, (_, i) => (i + 1) * 10);
    await store(
      latencies.map((latency_ms, i) =>
        record(tenantId, {
          latency_ms,
          occurred_at: inWindow(i * 2),
          ...(statuses[i] ? { status: statuses[i] } : {}),
        }),
      ),
    );
    // Just outside, both sides, and another tenant inside.
    await store([
      record(tenantId, {
        latency_ms: 1,
        status: 500,
        occurred_at: new Date(FROM.getTime() - 1).toISOString(),
      }),
      record(tenantId, { latency_ms: 1, status: 500, occurred_at: TO.toISOString() }),
      record(uniqueTenant(), { latency_ms: 1, status: 500, occurred_at: inWindow(0) }),
    ]);

    // Act
    const exact = await tenantSignals(getSql(), { tenantId, from: FROM, to: TO }, OPTIONS);
    const histogram = await tenantSignals(
      getSql(),
      { tenantId, from: FROM, to: TO },
      { ...OPTIONS, exactPercentilesUpTo: 0 },
    );

    // Assert
    expect(exact).toEqual({
      requests: 20,
      observed: {
        error_rate: 0.2,
        p95_latency: expect.closeTo(percentileCont(latencies, 0.95), 6),
        blocked_rate: 0.25,
      },
    });
    expect(histogram).toEqual({
      requests: 20,
      observed: { error_rate: 0.2, p95_latency: within1Percent(190), blocked_rate: 0.25 },
    });
  });

  it('when the tenant has no request in the window, then 0 requests and nothing judged', async () => {
    // Act
    const signals = await tenantSignals(getSql(), { tenantId: uniqueTenant(), from: FROM, to: TO }, OPTIONS);

    // Assert
    expect(signals).toEqual({
      requests: 0,
      observed: { error_rate: null, p95_latency: null, blocked_rate: null },
    });
  });
});

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const DETECT = { exactPercentilesUpTo: 10_000 };

describe('detectAnomalies', () => {
  it('when a tenant’s error and blocked rates land exactly on their warnings, then the report is measured with both warnings, the thresholds and the minimum', async () => {
    // Arrange: 20 requests, 4 failed (0.2) and 5 refused (0.25).
    const tenantId = uniqueTenant();
    await store(
      Array.from({ length: 20 }, (_, i) =>
        record(tenantId, {
          latency_ms: 5,
          occurred_at: minutesAgo(2),
          ...(i < 4 ? { status: 400 } : i < 9 ? { status: 429 } : {}),
        }),
      ),
    );

    // Act
    const report = await detectAnomalies({ tenant_id: tenantId, window_minutes: 5 }, policy, DETECT);

    // Assert
    expect(report).toEqual({
      state: 'measured',
      window: { minutes: 5, from: expect.any(String), to: expect.any(String) },
      anomaly_count: report.anomalies.length,
      anomalies: expect.arrayContaining([
        expect.objectContaining({ name: 'error_rate', severity: 'warning', observed: 0.2, threshold: 0.2 }),
        expect.objectContaining({
          name: 'blocked_rate',
          severity: 'warning',
          observed: 0.25,
          threshold: 0.25,
        }),
      ]),
      thresholds: policy.thresholds,
      min_requests: 10,
    });
    expect(report.anomalies.filter((a) => a.scope === 'tenant')).toHaveLength(2);
    expect(Date.parse(report.window.to) - Date.parse(report.window.from)).toBe(5 * 60_000);
  });

  it('when a tenant has fewer requests than the minimum, all failed, then the report is measured with no tenant anomaly', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    await store(
      Array.from({ length: 9 }, () =>
        record(tenantId, { latency_ms: 50_000, status: 500, occurred_at: minutesAgo(1) }),
      ),
    );

    // Act
    const report = await detectAnomalies({ tenant_id: tenantId, window_minutes: 5 }, policy, DETECT);

    // Assert
    expect(report.state).toBe('measured');
    expect(report.anomalies.filter((a) => a.scope === 'tenant')).toEqual([]);
  });

  it('when billing and telemetry lose records, then a tenant with no requests is told: no_data, with each deployment count over the window', async () => {
    // Arrange: 500 dropped (critical exactly), one usage and two record dead letters; one usage dead
    // letter from before the window.
    await insertDropReport(getSql(), {
      messageId: `drop-${randomUUID()}`,
      gatewayInstance: 'gw-unit',
      dropped: 500,
    });
    await insertDeadLetter(getSql(), { streamSequence: 1, reason: 'unit', deadLetteredAt: minutesAgo(1) });
    await insertDeadLetter(getSql(), { streamSequence: 2, reason: 'unit', deadLetteredAt: minutesAgo(30) });
    await insertRecordDeadLetters(
      getSql(),
      [1, 2].map((n) => ({
        letterId: `unit-${randomUUID()}#${n}`,
        gatewayInstance: 'gw-unit',
        recordIndex: n,
        reason: 'unit',
        payload: '{}',
      })),
    );

    // The letters are stamped by PostgreSQL, rounded to the millisecond (possibly up), and the window ends
    // at the process's now: let the process's clock pass the stamp, as it has in practice by the next read.
    const [stamp] = await getSql()<{ latest: Date }>(
      'SELECT max(dead_lettered_at) AS latest FROM request_record_dead_letter',
      [],
    );
    while (Date.now() <= new Date(stamp?.latest ?? 0).getTime()) await new Promise((r) => setTimeout(r, 1));

    // Act
    const report = await detectAnomalies({ tenant_id: uniqueTenant(), window_minutes: 5 }, policy, DETECT);

    // Assert
    expect(report.state).toBe('no_data');
    expect(report.anomalies.map(({ message: _, ...a }) => a)).toEqual([
      {
        name: 'usage_dead_letters',
        severity: 'warning',
        observed: 1,
        threshold: 1,
        unit: 'count',
        scope: 'deployment',
        window_minutes: 5,
      },
      {
        name: 'dropped_request_records',
        severity: 'critical',
        observed: 500,
        threshold: 500,
        unit: 'count',
        scope: 'deployment',
        window_minutes: 5,
      },
      {
        name: 'request_record_dead_letters',
        severity: 'warning',
        observed: 2,
        threshold: 1,
        unit: 'count',
        scope: 'deployment',
        window_minutes: 5,
      },
    ]);
    expect(report.anomaly_count).toBe(3);
  });
});
