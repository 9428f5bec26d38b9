import type { RequestRecord } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { interleave, publishRecords, record, storedRecords } from '../support/crafted-records.js';
import { createTenant } from '../support/factories.js';
import { bucketOf, expectedSeries, sumSeries } from '../support/series.js';
import { useStack } from '../support/stack.js';
import { telemetryDbRows } from '../support/telemetry.js';

// Every window here is read from the per-minute rollups and their histogram, however few its requests.
const t = useStack({
  telemetryEnv: { TELEMETRY_EXACT_PERCENTILES_UP_TO: '0', ANOMALY_MIN_REQUESTS: '10' },
});

const METRICS = '/api/v1/infrastructure/metrics';
const ANOMALIES = '/api/v1/infrastructure/anomalies';
const MINUTE = 60_000;

/** The latency at nearest rank ⌈q·n⌉: what the histogram answers, to within 1 %. */
function nearestRank(values: number[], q: number) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1] as number;
}

const within1Percent = (value: number) => expect.closeTo(value, -Math.log10(value * 0.02));

describe('metrics and anomalies from per-minute rollups', () => {
  it('when records spread over whole and partial minutes, then counts are exact, edges are cut at the window and percentiles are within 1 %', async () => {
    const tenant = await createTenant();
    const now = Date.now();
    // Inside a 10-minute window: spread over its last 9 minutes, so whole minutes and both edges hold some.
    const at = (i: number) => new Date(now - 30_000 - ((i * 7_919) % (9 * MINUTE))).toISOString();
    const writeLatencies = Array.from({ length: 150 }, (_, i) => 1 + i * 1.5);
    const writes = writeLatencies.map((latency_ms, i) =>
      record(tenant.tenant_id, {
        latency_ms,
        occurred_at: at(i),
        deployment_version: i % 3 ? 'version-a' : 'version-b',
        ...(i % 10 === 0 ? { status: 500, error_code: 'internal_error' } : {}),
        ...(i % 25 === 1 ? { status: 429, error_code: 'rate_limited' } : {}),
      }),
    );
    const recallLatencies = Array.from({ length: 60 }, (_, i) => 40 + i ** 2);
    const recalls = recallLatencies.map((latency_ms, i) =>
      record(tenant.tenant_id, {
        latency_ms,
        occurred_at: at(i + 1_000),
        route: '/api/v1/memory/recall',
        operation: 'memory.recall',
        deployment_version: 'version-a',
        ...(i === 7 ? { status: 504, error_code: 'upstream_timeout' } : {}),
      }),
    );
    // Just outside the window (10.5 and 30 minutes ago): in rollup minutes next to it, never counted.
    const outside = [10.5, 30].map((minutes) =>
      record(tenant.tenant_id, {
        latency_ms: 99_999,
        occurred_at: new Date(now - minutes * MINUTE).toISOString(),
      }),
    );
    const all = [...writes, ...recalls, ...outside];
    await publishRecords(interleave(all));
    await storedRecords(tenant.tenant_id, all.length);
    // The rollups hold every stored record, each counted once.
    const [rolled] = await telemetryDbRows<{ n: number }>(
      'SELECT sum(requests)::int AS n FROM request_rollup WHERE tenant_id = $1',
      [tenant.tenant_id],
    );
    expect(rolled?.n).toBe(all.length);

    const res = await t.api.get(METRICS, { key: tenant.api_key, query: { window_minutes: '10' } });

    expect(res.status).toBe(200);
    // Reading the route is itself a request of the tenant: everything but the crafted ones is left out.
    const crafted = res.body.latency.filter((l: { operation: string }) => l.operation.startsWith('memory.'));
    expect(res.body.percentiles).toBe('histogram');
    expect(crafted).toEqual([
      {
        operation: 'memory.write',
        requests: 150,
        p50_ms: within1Percent(nearestRank(writeLatencies, 0.5)),
        p95_ms: within1Percent(nearestRank(writeLatencies, 0.95)),
        p99_ms: within1Percent(nearestRank(writeLatencies, 0.99)),
        max_ms: Math.max(...writeLatencies),
      },
      {
        operation: 'memory.recall',
        requests: 60,
        p50_ms: within1Percent(nearestRank(recallLatencies, 0.5)),
        p95_ms: within1Percent(nearestRank(recallLatencies, 0.95)),
        p99_ms: within1Percent(nearestRank(recallLatencies, 0.99)),
        max_ms: Math.max(...recallLatencies),
      },
    ]);
    const inWindow = [...writes, ...recalls];
    const count = (pick: (r: RequestRecord) => boolean) => inWindow.filter(pick).length;
    expect(res.body.quality).toMatchObject({
      requests: inWindow.length,
      errors: count((r) => r.outcome === 'failed'),
      server_errors: count((r) => r.status >= 500),
      timeouts: 1,
      blocked: count((r) => r.outcome === 'blocked'),
    });
    // The series: per minute, counts exact and percentiles within 1 % of each minute's nearest rank.
    const perMinute = new Map<string, RequestRecord[]>();
    for (const r of inWindow) {
      const from = bucketOf(r.occurred_at, 1);
      perMinute.set(from, [...(perMinute.get(from) ?? []), r]);
    }
    const filled = Object.fromEntries(
      [...perMinute].map(([from, records]) => {
        const latencies = records.map((r) => r.latency_ms);
        return [
          from,
          {
            requests: records.length,
            errors: records.filter((r) => r.outcome === 'failed').length,
            blocked: records.filter((r) => r.outcome === 'blocked').length,
            p50_ms: within1Percent(nearestRank(latencies, 0.5)),
            p95_ms: within1Percent(nearestRank(latencies, 0.95)),
          },
        ];
      }),
    );
    expect(perMinute.size).toBeGreaterThanOrEqual(9);
    expect(res.body.bucket_minutes).toBe(1);
    expect(res.body.series).toEqual(
      expectedSeries(
        res.body.window,
        1,
        { requests: 0, errors: 0, blocked: 0, p50_ms: null, p95_ms: null },
        filled,
      ),
    );
    const { requests, errors, blocked } = res.body.quality;
    expect(sumSeries(res.body.series, ['requests', 'errors', 'blocked'] as const)).toEqual({
      requests,
      errors,
      blocked,
    });

    const craftedVersions = res.body.deployment_versions.filter((v: { deployment_version: string }) =>
      v.deployment_version.startsWith('version-'),
    );
    expect(craftedVersions).toEqual([
      { deployment_version: 'version-a', requests: count((r) => r.deployment_version === 'version-a') },
      { deployment_version: 'version-b', requests: count((r) => r.deployment_version === 'version-b') },
    ]);

    // Anomalies read the same: p95 over every request of the window, from the histogram.
    const anomalies = await t.api.get(ANOMALIES, { key: tenant.api_key, query: { window_minutes: '10' } });
    expect(anomalies.status).toBe(200);
    const errorRate = anomalies.body.anomalies.find((a: { name: string }) => a.name === 'error_rate');
    // 16 failed of 210, and of the route reads recorded by then (at most the one metrics read).
    const failed = count((r) => r.outcome === 'failed');
    expect(failed).toBe(16);
    expect(errorRate).toMatchObject({ severity: 'warning', threshold: 0.05 });
    expect(errorRate.observed).toBeGreaterThanOrEqual(failed / (inWindow.length + 1) - 1e-6);
    expect(errorRate.observed).toBeLessThanOrEqual(failed / inWindow.length + 1e-6);

    // A wider window takes in the record 10.5 minutes old, and its latency becomes the max.
    const wide = await t.api.get(METRICS, { key: tenant.api_key, query: { window_minutes: '15' } });
    const write = wide.body.latency.find((l: { operation: string }) => l.operation === 'memory.write');
    expect(write).toMatchObject({ requests: 151, max_ms: 99_999 });
  });
});
