import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closePrisma, getSql, initPrisma } from '../src/data-access/prisma-client.js';
import { ALL_OPERATIONS, windowStatistics } from '../src/domain/window-statistics.js';
import {
  nearestRank,
  percentileCont,
  record,
  store,
  uniqueTenant,
  within1Percent,
} from './support/factories.js';

// The run's shared (migrated) telemetry database; each test has a tenant of its own.
beforeAll(() => {
  initPrisma(inject('stack').telemetryDbUrl, 2);
});
afterAll(() => closePrisma());

const MINUTE = 60_000;
/** Ten minutes across midnight UTC, starting and ending mid-minute: whole minutes and two edges. */
const FROM = new Date('2026-11-20T23:55:30.000Z');
const TO = new Date('2026-11-21T00:05:30.000Z');
const at = (msAfterFrom: number) => new Date(FROM.getTime() + msAfterFrom).toISOString();

/** 30 writes and 12 recalls spread over the window's whole minutes and both edges, some failed or refused. */
function spreadOver(tenantId: string) {
  const writeLatencies = Array.from({ length: 30 }, (_, i) => 2 + i * 3.5);
  const recallLatencies = Array.from({ length: 12 }, (_, i) => 40 + i ** 2);
  const writes = writeLatencies.map((latency_ms, i) =>
    record(tenantId, {
      latency_ms,
      occurred_at: at((i * 19_997) % (10 * MINUTE)),
      deployment_version: i % 3 ? 'version-a' : 'version-b',
      ...(i % 10 === 0 ? { status: 500, error_code: 'internal_error' } : {}),
      ...(i % 10 === 1 ? { status: 429, error_code: 'rate_limited' } : {}),
      ...(i === 2 ? { status: 504, error_code: 'upstream_timeout' } : {}),
    }),
  );
  const recalls = recallLatencies.map((latency_ms, i) =>
    record(tenantId, {
      latency_ms,
      occurred_at: at(15_000 + i * 47_000),
      method: 'GET',
      route: '/api/v1/infrastructure/usage',
      operation: null,
      deployment_version: 'version-a',
      ...(i === 3 ? { status: 404, error_code: 'not_found' } : {}),
    }),
  );
  return { writes, recalls, writeLatencies, recallLatencies };
}

/** Outside [FROM, TO): in the edge minutes' rollups, so they would show if the edges were not cut. */
const outside = (tenantId: string) => [
  record(tenantId, { latency_ms: 99_999, occurred_at: new Date(FROM.getTime() - 1).toISOString() }),
  record(tenantId, { latency_ms: 99_999, occurred_at: TO.toISOString() }),
];

const byOperationAndVersion = (a: { operation: string; deployment_version: string }, b: typeof a) =>
  `${a.operation} ${a.deployment_version}`.localeCompare(`${b.operation} ${b.deployment_version}`);

describe('windowStatistics', () => {
  it('when a window crossing midnight holds fewer requests than the exact bound, then counts per operation and version are exact, its edges are cut at the window, and percentiles are percentile_cont', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    const { writes, recalls, writeLatencies, recallLatencies } = spreadOver(tenantId);
    await store([...writes, ...recalls, ...outside(tenantId), ...spreadOver(uniqueTenant()).writes]);

    // Act
    const stats = await windowStatistics(getSql(), { tenantId, from: FROM, to: TO }, 10_000);

    // Assert
    expect(stats.exactPercentiles).toBe(true);
    const count = (rs: typeof writes, version: string) => {
      const of = rs.filter((r) => r.deployment_version === version);
      return {
        requests: of.length,
        accepted: of.filter((r) => r.outcome === 'accepted').length,
        errors: of.filter((r) => r.outcome === 'failed').length,
        server_errors: of.filter((r) => r.status >= 500).length,
        timeouts: of.filter((r) => r.error_code === 'upstream_timeout').length,
        blocked: of.filter((r) => r.outcome === 'blocked').length,
        max: Math.max(...of.map((r) => r.latency_ms)),
      };
    };
    expect([...stats.parts].sort(byOperationAndVersion)).toEqual([
      {
        operation: 'GET /api/v1/infrastructure/usage',
        deployment_version: 'version-a',
        ...count(recalls, 'version-a'),
      },
      { operation: 'memory.write', deployment_version: 'version-a', ...count(writes, 'version-a') },
      { operation: 'memory.write', deployment_version: 'version-b', ...count(writes, 'version-b') },
    ]);
    const exact = (values: number[]) =>
      [0.5, 0.95, 0.99].map((p) => expect.closeTo(percentileCont(values, p), 9));
    expect(Object.fromEntries(stats.percentiles)).toEqual({
      'memory.write': exact(writeLatencies),
      'GET /api/v1/infrastructure/usage': exact(recallLatencies),
      [ALL_OPERATIONS]: exact([...writeLatencies, ...recallLatencies]),
    });
  });

  it('when the window holds more requests than the exact bound, then the same counts come back and percentiles are within 1 % of nearest rank, never above the max', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    const { writes, recalls, writeLatencies, recallLatencies } = spreadOver(tenantId);
    await store([...writes, ...recalls, ...outside(tenantId)]);
    const exactly = await windowStatistics(getSql(), { tenantId, from: FROM, to: TO }, 10_000);

    // Act
    const stats = await windowStatistics(getSql(), { tenantId, from: FROM, to: TO }, 0);

    // Assert
    expect(stats.exactPercentiles).toBe(false);
    expect([...stats.parts].sort(byOperationAndVersion)).toEqual(
      [...exactly.parts].sort(byOperationAndVersion),
    );
    const histogram = (values: number[]) =>
      [0.5, 0.95, 0.99].map((q) => within1Percent(nearestRank(values, q)));
    const all = [...writeLatencies, ...recallLatencies];
    expect(Object.fromEntries(stats.percentiles)).toEqual({
      'memory.write': histogram(writeLatencies),
      'GET /api/v1/infrastructure/usage': histogram(recallLatencies),
      [ALL_OPERATIONS]: histogram(all),
    });
    for (const [operation, values] of [
      ['memory.write', writeLatencies],
      [ALL_OPERATIONS, all],
    ] as const) {
      for (const p of stats.percentiles.get(operation) ?? [])
        expect(p).toBeLessThanOrEqual(Math.max(...values));
    }
  });

  it('when the window holds exactly as many requests as the exact bound, then percentiles are exact; one more, then from the histogram', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    await store(
      [3, 5, 8, 13, 21].map((latency_ms, i) => record(tenantId, { latency_ms, occurred_at: at(i * MINUTE) })),
    );
    const w = { tenantId, from: FROM, to: TO };

    // Act
    const atBound = await windowStatistics(getSql(), w, 5);
    const pastBound = await windowStatistics(getSql(), w, 4);

    // Assert
    expect(atBound.exactPercentiles).toBe(true);
    expect(atBound.percentiles.get(ALL_OPERATIONS)).toEqual([
      8,
      expect.closeTo(19.4, 9),
      expect.closeTo(20.68, 9),
    ]);
    expect(pastBound.exactPercentiles).toBe(false);
    expect(pastBound.percentiles.get(ALL_OPERATIONS)).toEqual([
      within1Percent(8),
      within1Percent(21),
      within1Percent(21),
    ]);
  });

  it('when the window holds no request of the tenant, then no parts and no percentiles, read as exact', async () => {
    // Arrange: another tenant is busy in the same window, and this one just outside it.
    const tenantId = uniqueTenant();
    await store([...spreadOver(uniqueTenant()).writes, ...outside(tenantId)]);

    // Act
    const stats = await windowStatistics(getSql(), { tenantId, from: FROM, to: TO }, 0);

    // Assert
    expect(stats).toEqual({ parts: [], percentiles: new Map(), exactPercentiles: true });
  });

  it('when the window holds one request, then every percentile is its latency (exactly, or within 1 % and not above it from the histogram)', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    await store([record(tenantId, { latency_ms: 123.456, occurred_at: at(4 * MINUTE) })]);
    const w = { tenantId, from: FROM, to: TO };

    // Act
    const exact = await windowStatistics(getSql(), w, 10_000);
    const histogram = await windowStatistics(getSql(), w, 0);

    // Assert
    expect(exact.percentiles.get(ALL_OPERATIONS)).toEqual([123.456, 123.456, 123.456]);
    expect(exact.percentiles.get('memory.write')).toEqual([123.456, 123.456, 123.456]);
    for (const p of histogram.percentiles.get(ALL_OPERATIONS) ?? []) {
      expect(p).toEqual(within1Percent(123.456));
      expect(p).toBeLessThanOrEqual(123.456);
    }
    expect(histogram.parts).toEqual([expect.objectContaining({ requests: 1, accepted: 1, max: 123.456 })]);
  });

  it('when the window lies within one minute, then it is read from the records alone and still cut at both ends', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    const minute = new Date('2026-11-21T00:00:00.000Z').getTime();
    await store(
      [5_000, 20_000, 40_000, 55_000].map((ms, i) =>
        record(tenantId, { latency_ms: 10 + i, occurred_at: new Date(minute + ms).toISOString() }),
      ),
    );

    // Act
    const stats = await windowStatistics(
      getSql(),
      { tenantId, from: new Date(minute + 10_000), to: new Date(minute + 50_000) },
      0,
    );

    // Assert
    expect(stats.parts).toEqual([expect.objectContaining({ requests: 2, max: 12 })]);
  });
});
