import { randomUUID } from 'node:crypto';
import {
  type Anomaly,
  type RequestRecord,
  RequestRecordBatch,
  RUNTIME,
  Subjects,
  UsageDeadLetter,
} from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { interleave, publish, publishRecords, record, storedRecords } from '../support/crafted-records.js';
import { EVENTUALLY } from '../support/eventually.js';
import { createTenant, recallBody, uniqueNamespace } from '../support/factories.js';
import { bucketOf, bucketStarts, expectedSeries, sumSeries } from '../support/series.js';
import { useStack } from '../support/stack.js';
import { telemetryDbRows } from '../support/telemetry.js';

// Thresholds are per deployment, so this file's stack carries the ones its tests reason about.
const ERROR_RATE = { warning: 0.2, critical: 0.6 };
const P95_MS = { warning: 60_000, critical: 120_000 }; // far above any latency the real stack produces
const DROPPED = { warning: 1, critical: 500 };
const DEAD_LETTERS = { warning: 1, critical: 1_000_000 };
const MIN_REQUESTS = 10;
const DEPLOYMENT = { version: 'metrics-e2e-7', environment: 'e2e-metrics' };

const t = useStack({
  gatewayEnv: { DEPLOYMENT_VERSION: DEPLOYMENT.version, DEPLOYMENT_ENVIRONMENT: DEPLOYMENT.environment },
  telemetryEnv: {
    ANOMALY_ERROR_RATE_WARNING: String(ERROR_RATE.warning),
    ANOMALY_ERROR_RATE_CRITICAL: String(ERROR_RATE.critical),
    ANOMALY_P95_LATENCY_MS_WARNING: String(P95_MS.warning),
    ANOMALY_P95_LATENCY_MS_CRITICAL: String(P95_MS.critical),
    ANOMALY_BLOCKED_RATE_WARNING: '0.25',
    ANOMALY_BLOCKED_RATE_CRITICAL: '0.5',
    ANOMALY_DROPPED_RECORDS_WARNING: String(DROPPED.warning),
    ANOMALY_DROPPED_RECORDS_CRITICAL: String(DROPPED.critical),
    ANOMALY_DEAD_LETTERS_WARNING: String(DEAD_LETTERS.warning),
    ANOMALY_DEAD_LETTERS_CRITICAL: String(DEAD_LETTERS.critical),
    ANOMALY_MIN_REQUESTS: String(MIN_REQUESTS),
  },
});

const METRICS = '/api/v1/infrastructure/metrics';
const ANOMALIES = '/api/v1/infrastructure/anomalies';

// ---- reference computations -----------------------------------------------------------------------

/** PostgreSQL percentile_cont: rank p·(n−1) in the sorted values, linear interpolation between neighbours. */
function percentileCont(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = p * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const below = sorted[lo] as number;
  const above = sorted[hi] as number;
  return below + (rank - lo) * (above - below);
}

/** Shares and rates as reported: six decimal places. */
const ratio = (part: number, whole: number) => Math.round((part / whole) * 1e6) / 1e6;

// ---- through the gateway -------------------------------------------------------------------------

/** `good` valid recalls (200) then `bad` recalls with top_k 0 (400 validation_failed, outcome failed). */
async function burst(key: string, good: number, bad: number) {
  const namespace = uniqueNamespace('burst');
  const statuses: number[] = [];
  for (let i = 0; i < good; i++)
    statuses.push((await t.api.recall(key, recallBody(namespace, 'cue'))).status);
  for (let i = 0; i < bad; i++) {
    statuses.push((await t.api.recall(key, recallBody(namespace, 'cue', { top_k: 0 }))).status);
  }
  expect(statuses).toEqual([...Array(good).fill(200), ...Array(bad).fill(400)]);
}

async function anomalies(key: string, windowMinutes: number) {
  const res = await t.api.get(ANOMALIES, { key, query: { window_minutes: String(windowMinutes) } });
  expect(res.status).toBe(200);
  expect(res.body.anomaly_count).toBe(res.body.anomalies.length);
  return res.body as { state: string; anomalies: Anomaly[]; window: { from: string; to: string } } & Record<
    string,
    unknown
  >;
}

const tenantScoped = (report: { anomalies: Anomaly[] }) =>
  report.anomalies.filter((a) => a.scope === 'tenant');
const named = (report: { anomalies: Anomaly[] }, name: Anomaly['name']) =>
  report.anomalies.filter((a) => a.name === name);

const errorRateAnomaly = (observed: number, severity: 'warning' | 'critical', windowMinutes: number) => ({
  name: 'error_rate',
  severity,
  observed,
  threshold: ERROR_RATE[severity],
  unit: 'ratio',
  scope: 'tenant',
  window_minutes: windowMinutes,
  message: expect.stringContaining(`${observed} over the last ${windowMinutes} min`),
});

describe('GET /api/v1/infrastructure/metrics', () => {
  it('when a tenant has a known latency distribution, then p50/p95/p99 per operation match percentile_cont, with quality, mix and versions', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const id = tenant.tenant_id;

    // memory.write: 1..200 ms, on version A; the last ten are failed, timed out, a 500, or rate limited.
    const writeLatencies = Array.from({ length: 200 }, (_, i) => i + 1);
    const writeFate = (i: number): Partial<RequestRecord> => {
      if (i >= 190 && i < 195) return { status: 400, error_code: 'validation_failed' };
      if (i >= 195 && i < 197) return { status: 504, error_code: 'upstream_timeout' };
      if (i === 197) return { status: 500, error_code: 'internal_error' };
      if (i >= 198) return { status: 429, error_code: 'rate_limited' };
      return { state: 'retained', units: 1, billing_state: 'billable' };
    };
    const writes = writeLatencies.map((latency_ms, i) =>
      record(id, { latency_ms, deployment_version: 'version-a', ...writeFate(i) }),
    );
    // memory.recall: skewed, 90 fast in 0.5 ms steps and a long tail of 10, on version B.
    const recallLatencies = Array.from({ length: 100 }, (_, i) =>
      i < 90 ? 3 + i * 0.5 : 200 + (i - 89) ** 2 * 7.25,
    );
    const recalls = recallLatencies.map((latency_ms, i) =>
      record(id, {
        latency_ms,
        deployment_version: 'version-b',
        route: '/api/v1/memory/recall',
        operation: 'memory.recall',
        ...(i % 25 === 0
          ? { status: 403, error_code: 'credential_not_accepted' }
          : i === 99
            ? { status: 504, error_code: 'upstream_timeout' }
            : { state: 'matched', units: 1, billing_state: 'billable' }),
      }),
    );
    // A route with no operation name is reported as "METHOD /route".
    const usageLatencies = [1, 2, 10];
    const usageReads = usageLatencies.map((latency_ms) =>
      record(id, {
        latency_ms,
        deployment_version: 'version-a',
        method: 'GET',
        route: '/api/v1/infrastructure/usage',
        operation: null,
      }),
    );
    const all = [...writes, ...recalls, ...usageReads];
    await publishRecords(interleave(all));
    // Waiting on the database, not the route: each read of the route is itself a record of the tenant.
    await storedRecords(id, all.length);

    const res = await t.api.get(METRICS, { key: tenant.api_key });
    expect(res.status).toBe(200);
    const body = res.body;

    const latency = (operation: string, values: number[]) => ({
      operation,
      requests: values.length,
      p50_ms: expect.closeTo(percentileCont(values, 0.5), 2),
      p95_ms: expect.closeTo(percentileCont(values, 0.95), 2),
      p99_ms: expect.closeTo(percentileCont(values, 0.99), 2),
      max_ms: Math.max(...values),
    });
    expect(body.latency).toEqual([
      latency('memory.write', writeLatencies),
      latency('memory.recall', recallLatencies),
      latency('GET /api/v1/infrastructure/usage', usageLatencies),
    ]);
    // The reference itself, spelled out once for the evenly spread writes: ranks 99.5, 189.05, 197.01.
    expect(body.latency[0]).toMatchObject({ p50_ms: 100.5, p95_ms: 190.05, p99_ms: 198.01, max_ms: 200 });

    const count = (pick: (r: RequestRecord) => boolean) => all.filter(pick).length;
    const quality = {
      requests: all.length,
      accepted: count((r) => r.outcome === 'accepted'),
      errors: count((r) => r.outcome === 'failed'),
      server_errors: count((r) => r.status >= 500),
      timeouts: count((r) => r.error_code === 'upstream_timeout'),
      blocked: count((r) => r.outcome === 'blocked'),
    };
    expect(quality).toEqual({
      requests: 303,
      accepted: 288,
      errors: 9,
      server_errors: 4,
      timeouts: 3,
      blocked: 6,
    });
    expect(body.quality).toEqual({
      ...quality,
      error_rate: ratio(quality.errors, quality.requests),
      timeout_rate: ratio(quality.timeouts, quality.requests),
      blocked_rate: ratio(quality.blocked, quality.requests),
    });
    expect(body.operation_mix).toEqual([
      { operation: 'memory.write', requests: 200, share: expect.closeTo(200 / 303, 5) },
      { operation: 'memory.recall', requests: 100, share: expect.closeTo(100 / 303, 5) },
      { operation: 'GET /api/v1/infrastructure/usage', requests: 3, share: expect.closeTo(3 / 303, 5) },
    ]);
    expect(body.deployment_versions).toEqual([
      { deployment_version: 'version-a', requests: 203 },
      { deployment_version: 'version-b', requests: 100 },
    ]);
    expect(body.state).toBe('measured');
    expect(body.deployment).toEqual({
      deployment_version: DEPLOYMENT.version,
      environment: DEPLOYMENT.environment,
      execution_mode: 'mock',
      provider: RUNTIME.provider,
      model_version: RUNTIME.model_version,
    });
    expect(body.request_id).toBe(res.headers['x-request-id']);
    expect(body.window.minutes).toBe(60);
    expect(Date.parse(body.window.to) - Date.parse(body.window.from)).toBe(60 * 60_000);

    // The owner's session reads the same numbers; another tenant's key sees none of them.
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const bySession = await t.api.get(METRICS, { key: session });
    expect(bySession.status).toBe(200);
    expect(bySession.body.latency.slice(0, 2)).toEqual(body.latency.slice(0, 2));
    const foreign = await t.api.get(METRICS, { key: other.api_key });
    expect(foreign.status).toBe(200);
    expect(foreign.body).toMatchObject({
      state: 'no_data',
      latency: [],
      operation_mix: [],
      deployment_versions: [],
      quality: { requests: 0, accepted: 0, errors: 0, blocked: 0, timeouts: 0, server_errors: 0 },
    });
  });

  it('when a tenant has no requests, or none inside the window, then state is no_data with zeros; a wider window measures them', async () => {
    const empty = await createTenant();
    const idle = await createTenant();
    const noData = {
      state: 'no_data',
      latency: [],
      quality: {
        requests: 0,
        accepted: 0,
        errors: 0,
        server_errors: 0,
        timeouts: 0,
        blocked: 0,
        error_rate: 0,
        timeout_rate: 0,
        blocked_rate: 0,
      },
      operation_mix: [],
      deployment_versions: [],
      bucket_minutes: 1,
    };
    const none = await t.api.get(METRICS, { key: empty.api_key });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject(noData);
    expect(none.body.series).toEqual(expectedSeries(none.body.window, 1, EMPTY_POINT, {}));

    // Ten minutes ago: outside a 5-minute window, inside a 15-minute one.
    const tenMinutesAgo = new Date(Date.now() - 10 * 60_000).toISOString();
    const latencies = [4, 8, 15, 16, 23, 42];
    await publishRecords(
      latencies.map((latency_ms) => record(idle.tenant_id, { latency_ms, occurred_at: tenMinutesAgo })),
    );
    await storedRecords(idle.tenant_id, latencies.length);

    const narrow = await t.api.get(METRICS, { key: idle.api_key, query: { window_minutes: '5' } });
    expect(narrow.status).toBe(200);
    expect(narrow.body).toMatchObject({ ...noData, window: { minutes: 5 } });

    // The narrow read is now a record of the tenant too (inside both windows).
    await storedRecords(idle.tenant_id, latencies.length + 1);
    const wide = await t.api.get(METRICS, { key: idle.api_key, query: { window_minutes: '15' } });
    expect(wide.status).toBe(200);
    expect(wide.body.state).toBe('measured');
    expect(wide.body.quality).toMatchObject({
      requests: latencies.length + 1,
      accepted: latencies.length + 1,
    });
    expect(wide.body.latency).toEqual([
      {
        operation: 'memory.write',
        requests: latencies.length,
        p50_ms: expect.closeTo(percentileCont(latencies, 0.5), 2),
        p95_ms: expect.closeTo(percentileCont(latencies, 0.95), 2),
        p99_ms: expect.closeTo(percentileCont(latencies, 0.99), 2),
        max_ms: 42,
      },
      expect.objectContaining({ operation: 'infrastructure.metrics', requests: 1 }),
    ]);
    expect(wide.body.deployment_versions).toEqual([
      { deployment_version: 'crafted', requests: latencies.length },
      { deployment_version: DEPLOYMENT.version, requests: 1 },
    ]);
  });
});

const MINUTE = 60_000;
const EMPTY_POINT = { requests: 0, errors: 0, blocked: 0, p50_ms: null, p95_ms: null };
const SERIES_COUNTS = ['requests', 'errors', 'blocked'] as const;

describe('GET /api/v1/infrastructure/metrics: series', () => {
  it("when requests fall in two known minutes, then the series lists every minute of the window oldest first, those two with their counts and exact percentiles, the rest zero, adding up to quality, with no other tenant's requests", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const now = Date.now();
    const ago = (minutes: number) => new Date(now - minutes * MINUTE).toISOString();
    const recent = [10, 20, 30, 40].map((latency_ms, i) =>
      record(tenant.tenant_id, {
        latency_ms,
        occurred_at: ago(5.5),
        ...(i === 3 ? { status: 400, error_code: 'validation_failed' } : {}),
      }),
    );
    const older = [7, 9].map((latency_ms, i) =>
      record(tenant.tenant_id, {
        latency_ms,
        occurred_at: ago(20.5),
        ...(i === 1 ? { status: 429, error_code: 'rate_limited' } : {}),
      }),
    );
    // Another tenant's requests in the same minute, slower than any of the tenant's.
    const foreign = [500, 600, 700].map((latency_ms) =>
      record(other.tenant_id, { latency_ms, occurred_at: ago(5.5), status: 500 }),
    );
    await publishRecords(interleave([...recent, ...older, ...foreign]));
    await storedRecords(tenant.tenant_id, 6);
    await storedRecords(other.tenant_id, 3);

    const res = await t.api.get(METRICS, { key: tenant.api_key });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ percentiles: 'exact', bucket_minutes: 1 });
    expect(res.body.series).toEqual(
      expectedSeries(res.body.window, 1, EMPTY_POINT, {
        [bucketOf(ago(5.5), 1)]: {
          requests: 4,
          errors: 1,
          blocked: 0,
          p50_ms: percentileCont([10, 20, 30, 40], 0.5),
          p95_ms: expect.closeTo(percentileCont([10, 20, 30, 40], 0.95), 6),
        },
        [bucketOf(ago(20.5), 1)]: {
          requests: 2,
          errors: 0,
          blocked: 1,
          p50_ms: percentileCont([7, 9], 0.5),
          p95_ms: expect.closeTo(percentileCont([7, 9], 0.95), 6),
        },
      }),
    );
    // 60 whole minutes, and one more unless the window started exactly on a minute.
    expect(res.body.series.length).toBeGreaterThanOrEqual(60);
    expect(res.body.series.length).toBeLessThanOrEqual(61);
    const { requests, errors, blocked } = res.body.quality;
    expect(sumSeries(res.body.series, SERIES_COUNTS)).toEqual({ requests, errors, blocked });
    expect(requests).toBe(6);
  });

  it('when the window is read in 5-minute buckets, then each holds its minutes and still adds up to quality', async () => {
    const tenant = await createTenant();
    const now = Date.now();
    const minutesAgo = [1.5, 2.5, 3.5, 12.5, 13.5, 29];
    const records = minutesAgo.map((minutes, i) =>
      record(tenant.tenant_id, {
        latency_ms: 5 + i,
        occurred_at: new Date(now - minutes * MINUTE).toISOString(),
      }),
    );
    await publishRecords(records);
    await storedRecords(tenant.tenant_id, records.length);

    const res = await t.api.get(METRICS, {
      key: tenant.api_key,
      query: { window_minutes: '30', bucket_minutes: '5' },
    });

    expect(res.status).toBe(200);
    expect(res.body.bucket_minutes).toBe(5);
    const filled: Record<string, { requests: number; errors: number; blocked: number }> = {};
    for (const r of records) {
      const from = bucketOf(r.occurred_at, 5);
      filled[from] = { requests: (filled[from]?.requests ?? 0) + 1, errors: 0, blocked: 0 };
    }
    const series = res.body.series as Array<{ from: string; p50_ms: number | null }>;
    expect(series).toEqual(
      expectedSeries(res.body.window, 5, EMPTY_POINT, filled).map((p) =>
        p.requests > 0 ? { ...p, p50_ms: expect.any(Number), p95_ms: expect.any(Number) } : p,
      ),
    );
    expect(sumSeries(res.body.series, SERIES_COUNTS)).toEqual({
      requests: records.length,
      errors: 0,
      blocked: 0,
    });
  });

  it.each([
    [60, 1],
    [600, 5],
    [1_440, 15],
    [7_200, 60],
    [43_200, 360],
  ])(
    'when the window is %i minutes, then buckets are %i minutes: at most 121, all empty for an idle tenant',
    async (window, bucket) => {
      const tenant = await createTenant();

      const res = await t.api.get(METRICS, {
        key: tenant.api_key,
        query: { window_minutes: String(window) },
      });

      expect(res).toMatchObject({ status: 200, body: { state: 'no_data', bucket_minutes: bucket } });
      expect(res.body.series).toEqual(expectedSeries(res.body.window, bucket, EMPTY_POINT, {}));
      expect(res.body.series.length).toBeLessThanOrEqual(121);
    },
  );

  it.each([
    [
      { window_minutes: '1441', bucket_minutes: '1' },
      'bucket_minutes must be at least 2 for a window of 1441 minutes (at most 1440 buckets)',
    ],
    [{ bucket_minutes: '0' }, 'bucket_minutes must be at least 1'],
    [{ bucket_minutes: 'hour' }, 'bucket_minutes must be a whole number'],
  ])('when the query is %j, then 400 naming bucket_minutes', async (query, message) => {
    const tenant = await createTenant();

    const res = await t.api.get(METRICS, { key: tenant.api_key, query });

    expect(res).toMatchObject({
      status: 400,
      body: {
        retryable: false,
        details: { code: 'validation_failed', fields: [{ path: 'bucket_minutes', message }] },
      },
    });
  });

  it('when a day is read by the minute (the most buckets allowed), then 1,440 or 1,441 of them come back', async () => {
    const tenant = await createTenant();

    const res = await t.api.get(METRICS, {
      key: tenant.api_key,
      query: { window_minutes: '1440', bucket_minutes: '1' },
    });

    expect(res).toMatchObject({ status: 200, body: { bucket_minutes: 1 } });
    expect(res.body.series).toEqual(expectedSeries(res.body.window, 1, EMPTY_POINT, {}));
    expect(bucketStarts(res.body.window, 1).length).toBeGreaterThanOrEqual(1_440);
  });
});

describe('GET /api/v1/infrastructure/anomalies', () => {
  it('when 10 of 20 requests fail, then error_rate is a warning at 0.5; once a minute has passed, the 1-minute window no longer shows it', async () => {
    const tenant = await createTenant();
    await burst(tenant.api_key, 10, 10);
    await storedRecords(tenant.tenant_id, 20);

    const during = await anomalies(tenant.api_key, 1);
    expect(during.state).toBe('measured');
    expect(tenantScoped(during)).toEqual([errorRateAnomaly(0.5, 'warning', 1)]);
    expect(during.thresholds).toMatchObject({
      error_rate: { ...ERROR_RATE, unit: 'ratio', scope: 'tenant' },
      dropped_request_records: { ...DROPPED, unit: 'count', scope: 'deployment' },
    });
    expect(during.min_requests).toBe(MIN_REQUESTS);
    expect(Date.parse(during.window.to) - Date.parse(during.window.from)).toBe(60_000);

    // Wait until the last request of the burst (and the read above) are more than a minute old.
    const [last] = await telemetryDbRows<{ at: Date }>(
      'SELECT max(occurred_at) AS at FROM request_record WHERE tenant_id = $1',
      [tenant.tenant_id],
    );
    expect(last?.at).toBeInstanceOf(Date);
    const clearAt = (last?.at.getTime() ?? 0) + 62_000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, clearAt - Date.now())));

    const after = await anomalies(tenant.api_key, 1);
    expect(named(after, 'error_rate')).toEqual([]);
    expect(tenantScoped(after)).toEqual([]);

    // The requests are still there: the hour's window holds the burst and the two reads.
    await storedRecords(tenant.tenant_id, 22);
    const hour = await anomalies(tenant.api_key, 60);
    expect(tenantScoped(hour)).toEqual([errorRateAnomaly(ratio(10, 22), 'warning', 60)]);
  }, 120_000);

  it.each([
    [3, 'none'],
    [4, 'warning'],
    [10, 'warning'],
    [12, 'critical'],
    [16, 'critical'],
  ] as const)(
    'when %i of 20 requests fail, then error_rate severity is %s (at or above a threshold counts)',
    async (bad, severity) => {
      const tenant = await createTenant();
      await burst(tenant.api_key, 20 - bad, bad);
      await storedRecords(tenant.tenant_id, 20);

      const report = await anomalies(tenant.api_key, 5);
      expect(report.state).toBe('measured');
      expect(tenantScoped(report)).toEqual(
        severity === 'none' ? [] : [errorRateAnomaly(bad / 20, severity, 5)],
      );
    },
  );

  it('when fewer requests than the minimum were made, then no rate anomaly; the request that reaches the minimum brings it', async () => {
    const tenant = await createTenant();
    await burst(tenant.api_key, 2, 7);
    await storedRecords(tenant.tenant_id, 9);

    const few = await anomalies(tenant.api_key, 5);
    expect(few.state).toBe('measured');
    expect(few.min_requests).toBe(MIN_REQUESTS);
    expect(tenantScoped(few)).toEqual([]);

    // The read above is the tenth request (accepted): 7 of 10 failed.
    await storedRecords(tenant.tenant_id, MIN_REQUESTS);
    const enough = await anomalies(tenant.api_key, 5);
    expect(tenantScoped(enough)).toEqual([errorRateAnomaly(0.7, 'critical', 5)]);
  });

  it('when a tenant has slow and refused requests, then p95_latency and blocked_rate report the observed values', async () => {
    const tenant = await createTenant();
    const latencies = Array.from({ length: 10 }, (_, i) => (i + 1) * 10_000);
    await publishRecords(
      latencies.map((latency_ms, i) =>
        record(tenant.tenant_id, {
          latency_ms,
          ...(i < 3 ? { status: 403, error_code: 'permission_denied' } : {}),
        }),
      ),
    );
    await storedRecords(tenant.tenant_id, latencies.length);

    const report = await anomalies(tenant.api_key, 5);
    const p95 = percentileCont(latencies, 0.95);
    expect(p95).toBeCloseTo(95_500, 6); // rank 8.55: 90 000 + 0.55 × 10 000
    expect(tenantScoped(report)).toEqual([
      expect.objectContaining({
        name: 'p95_latency',
        severity: 'warning',
        observed: expect.closeTo(p95, 2),
        threshold: P95_MS.warning,
        unit: 'ms',
      }),
      expect.objectContaining({
        name: 'blocked_rate',
        severity: 'warning',
        observed: 0.3,
        threshold: 0.25,
        unit: 'ratio',
      }),
    ]);
  });

  it('when a gateway reports dropped records, then every tenant sees dropped_request_records with the window total', async () => {
    const first = await createTenant();
    const second = await createTenant();
    const dropped = 600; // alone above the critical threshold, whatever else the window holds
    const msgID = `drop-report-${randomUUID()}`;
    await publish(
      Subjects.gateway.requestRecorded,
      RequestRecordBatch.parse({
        version: 'v1',
        gateway_instance: `crafted-${randomUUID()}`,
        dropped,
        records: [],
      }),
      msgID,
    );
    await expect
      .poll(
        () => telemetryDbRows('SELECT dropped FROM dropped_record_report WHERE message_id = $1', [msgID]),
        EVENTUALLY,
      )
      .toEqual([{ dropped }]);

    for (const tenant of [first, second]) {
      const report = await anomalies(tenant.api_key, 1);
      // Deployment-wide: shown to a tenant with no requests of its own.
      expect(report.state).toBe('no_data');
      const [signal] = named(report, 'dropped_request_records');
      expect(signal).toMatchObject({
        severity: 'critical',
        threshold: DROPPED.critical,
        unit: 'count',
        scope: 'deployment',
        window_minutes: 1,
      });
      // Other files share the bus: the observed total is this report plus whatever else fell in the window.
      const [inWindow] = await telemetryDbRows<{ total: number }>(
        'SELECT coalesce(sum(dropped), 0)::int AS total FROM dropped_record_report WHERE reported_at >= $1 AND reported_at < $2',
        [report.window.from, report.window.to],
      );
      expect(signal?.observed).toBeGreaterThanOrEqual(dropped);
      expect(signal?.observed).toBe(inWindow?.total);
    }
  });

  it('when billing dead-letters a usage record, then usage_dead_letters counts it deployment-wide', async () => {
    const tenant = await createTenant();
    const letter = UsageDeadLetter.parse({
      stream_sequence: 1,
      subject: Subjects.memory.usageRecorded,
      reason: 'crafted by the telemetry e2e test',
      payload: '{}',
      dead_lettered_at: new Date().toISOString(),
    });
    const ack = await publish(Subjects.billing.usageDeadLetter, letter);
    await expect
      .poll(
        () => telemetryDbRows('SELECT reason FROM usage_dead_letter WHERE stream_sequence = $1', [ack.seq]),
        EVENTUALLY,
      )
      .toEqual([{ reason: letter.reason }]);

    const report = await anomalies(tenant.api_key, 1);
    const [signal] = named(report, 'usage_dead_letters');
    const [inWindow] = await telemetryDbRows<{ n: number }>(
      'SELECT count(*)::int AS n FROM usage_dead_letter WHERE dead_lettered_at >= $1 AND dead_lettered_at < $2',
      [report.window.from, report.window.to],
    );
    expect(signal).toMatchObject({
      severity: 'warning',
      threshold: DEAD_LETTERS.warning,
      unit: 'count',
      scope: 'deployment',
      window_minutes: 1,
    });
    expect(signal?.observed).toBeGreaterThanOrEqual(1);
    expect(signal?.observed).toBe(inWindow?.n);
  });
});

describe('metrics and anomalies: input and access', () => {
  const cases = [
    [{ window_minutes: '0' }, 'window_minutes'],
    [{ window_minutes: '43201' }, 'window_minutes'],
    [{ window_minutes: 'abc' }, 'window_minutes'],
    [{ window_minutes: '1.5' }, 'window_minutes'],
    [{ window: '5' }, 'window'],
  ] as const;
  it.each(
    [METRICS, ANOMALIES].flatMap((route) => cases.map(([query, field]) => [route, query, field] as const)),
  )('when %s is called with %o, then 400 validation_failed names %s', async (route, query, field) => {
    const tenant = await createTenant();
    const res = await t.api.get(route, { key: tenant.api_key, query: { ...query } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: expect.any(String),
      retryable: false,
      details: { code: 'validation_failed', request_id: res.headers['x-request-id'] },
    });
    expect(res.body.details.fields.map((f: { path: string }) => f.path)).toEqual([field]);
  });

  it('when window_minutes is at its bounds (1 and 43200), then both routes answer 200 with that window', async () => {
    const tenant = await createTenant();
    for (const route of [METRICS, ANOMALIES]) {
      for (const minutes of [1, 43_200]) {
        const res = await t.api.get(route, {
          key: tenant.api_key,
          query: { window_minutes: String(minutes) },
        });
        expect(res.status, `${route} ${minutes}`).toBe(200);
        expect(res.body.window.minutes).toBe(minutes);
      }
    }
  });

  it('when there is no credential, then 401; a key without telemetry:read, 403', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const created = await t.api.post('/api/v1/control/api-keys', {
      key: session,
      body: { name: 'writer', permissions: ['memory:write'] },
    });
    expect(created.status).toBe(201);
    for (const route of [METRICS, ANOMALIES]) {
      const anonymous = await t.api.get(route);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.details.code).toBe('authentication_required');
      expect((await t.api.get(route, { key: created.body.key })).status).toBe(403);
      expect((await t.api.get(route, { key: session })).status).toBe(200);
    }
  });

  it("when another tenant reads anomalies, then it sees none of the first tenant's failures", async () => {
    const failing = await createTenant();
    const other = await createTenant();
    await burst(failing.api_key, 0, 12);
    await storedRecords(failing.tenant_id, 12);

    expect(tenantScoped(await anomalies(failing.api_key, 5))).toEqual([errorRateAnomaly(1, 'critical', 5)]);
    const theirs = await anomalies(other.api_key, 5);
    expect(theirs.state).toBe('no_data');
    expect(tenantScoped(theirs)).toEqual([]);
  });
});
