import type { RequestRecord } from '@tm/contracts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closePrisma, getSql, initPrisma } from '../src/data-access/prisma-client.js';
import { metricsSeries } from '../src/domain/metrics-series.js';
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

const EMPTY = { requests: 0, errors: 0, blocked: 0, p50_ms: null, p95_ms: null };

/** 20 minutes across midnight UTC, starting and ending off a 5-minute boundary. */
const FROM = new Date('2026-11-20T23:52:30.000Z');
const TO = new Date('2026-11-21T00:12:30.000Z');

/** The tenant's requests by bucket start: latencies, and which failed or were refused. */
const PLAN: Record<string, Array<[offsetMs: number, latency: number, status?: number]>> = {
  // 23:50 bucket: only 23:52:30 onwards is inside; the 23:51 request is not.
  '2026-11-20T23:50:00.000Z': [
    [2 * 60_000 + 40_000, 12],
    [4 * 60_000, 30, 500],
  ],
  // 23:55: nothing.
  '2026-11-21T00:00:00.000Z': [
    [0, 5],
    [60_000, 7, 429],
    [2 * 60_000 + 1, 9],
    [4 * 60_000 + 59_999, 200, 400],
  ],
  '2026-11-21T00:05:00.000Z': [[3 * 60_000, 50]],
  // 00:10 bucket: only up to 00:12:30 is inside; the 00:12:30 request is not.
  '2026-11-21T00:10:00.000Z': [[2 * 60_000 + 29_999, 77]],
};

function arrange(tenantId: string) {
  const inside: RequestRecord[] = [];
  for (const [start, entries] of Object.entries(PLAN)) {
    for (const [offset, latency_ms, status] of entries) {
      inside.push(
        record(tenantId, {
          latency_ms,
          occurred_at: new Date(Date.parse(start) + offset).toISOString(),
          ...(status ? { status } : {}),
        }),
      );
    }
  }
  const outside = ['2026-11-20T23:51:00.000Z', '2026-11-21T00:12:30.000Z'].map((occurred_at) =>
    record(tenantId, { latency_ms: 9_999, occurred_at }),
  );
  return { inside, outside };
}

const countsOf = (start: string) => {
  const entries = PLAN[start] ?? [];
  return {
    requests: entries.length,
    errors: entries.filter(([, , s]) => s === 500 || s === 400).length,
    blocked: entries.filter(([, , s]) => s === 429).length,
  };
};
const latenciesOf = (start: string) => (PLAN[start] ?? []).map(([, latency]) => latency);

const STARTS = [
  '2026-11-20T23:50:00.000Z',
  '2026-11-20T23:55:00.000Z',
  '2026-11-21T00:00:00.000Z',
  '2026-11-21T00:05:00.000Z',
  '2026-11-21T00:10:00.000Z',
];

describe('metricsSeries', () => {
  it('when a window crossing midnight holds few requests, then every UTC-aligned 5-minute bucket it touches is listed oldest first, counts cut at the window, percentiles exact, an empty bucket zeros', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    const { inside, outside } = arrange(tenantId);
    await store([...inside, ...outside, ...arrange(uniqueTenant()).inside]);

    // Act
    const series = await metricsSeries(
      getSql(),
      { tenantId, from: FROM, to: TO, requests: inside.length },
      5,
      true,
    );

    // Assert: 20 minutes by 5 is 4 buckets, one more since the window starts off a boundary.
    expect(series).toEqual(
      STARTS.map((from) =>
        PLAN[from]
          ? {
              from,
              ...countsOf(from),
              p50_ms: expect.closeTo(percentileCont(latenciesOf(from), 0.5), 3),
              p95_ms: expect.closeTo(percentileCont(latenciesOf(from), 0.95), 3),
            }
          : { from, ...EMPTY },
      ),
    );
  });

  it('when the window holds many requests, then the same buckets and counts come back with percentiles within 1 % of each bucket’s nearest rank', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    const { inside, outside } = arrange(tenantId);
    await store([...inside, ...outside]);

    // Act
    const series = await metricsSeries(
      getSql(),
      { tenantId, from: FROM, to: TO, requests: inside.length },
      5,
      false,
    );

    // Assert
    expect(series).toEqual(
      STARTS.map((from) =>
        PLAN[from]
          ? {
              from,
              ...countsOf(from),
              p50_ms: within1Percent(nearestRank(latenciesOf(from), 0.5)),
              p95_ms: within1Percent(nearestRank(latenciesOf(from), 0.95)),
            }
          : { from, ...EMPTY },
      ),
    );
  });

  it('when the buckets are days, then a window across midnight has one bucket on each side, each starting at 00:00 UTC and adding up to the window', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    const { inside } = arrange(tenantId);
    await store(inside);

    for (const exact of [true, false]) {
      // Act
      const series = await metricsSeries(
        getSql(),
        { tenantId, from: FROM, to: TO, requests: inside.length },
        1_440,
        exact,
      );

      // Assert
      expect(series.map((p) => [p.from, p.requests, p.errors, p.blocked])).toEqual([
        ['2026-11-20T00:00:00.000Z', 2, 1, 0],
        ['2026-11-21T00:00:00.000Z', 6, 1, 1],
      ]);
    }
  });

  it('when the window starts on a bucket boundary, then it touches exactly window ÷ size buckets', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    const from = new Date('2026-11-21T00:00:00.000Z');
    await store([record(tenantId, { latency_ms: 4, occurred_at: from.toISOString() })]);

    // Act
    const series = await metricsSeries(
      getSql(),
      { tenantId, from, to: new Date(from.getTime() + 15 * 60_000), requests: 1 },
      5,
      true,
    );

    // Assert: the request exactly at the window's start is in it.
    expect(series).toEqual([
      { from: '2026-11-21T00:00:00.000Z', requests: 1, errors: 0, blocked: 0, p50_ms: 4, p95_ms: 4 },
      { from: '2026-11-21T00:05:00.000Z', ...EMPTY },
      { from: '2026-11-21T00:10:00.000Z', ...EMPTY },
    ]);
  });

  it('when the window holds no request, then every bucket is listed empty', async () => {
    // Arrange
    const tenantId = uniqueTenant();

    for (const exact of [true, false]) {
      // Act
      const series = await metricsSeries(getSql(), { tenantId, from: FROM, to: TO, requests: 0 }, 5, exact);

      // Assert
      expect(series).toEqual(STARTS.map((from) => ({ from, ...EMPTY })));
    }
  });
});
