import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { histogramQuantile } from '../src/domain/latency-histogram.js';

// The rollups' buckets as docs/decisions/telemetry.md defines them (the SQL function
// telemetry_latency_bucket): bucket b holds [0.01 ms × 1.02^b, 0.01 ms × 1.02^(b+1)).
const bucketStart = (b: number) => 0.01 * 1.02 ** b;
const bucketOf = (ms: number) => Math.floor(Math.log(ms / 0.01) / Math.log(1.02));

/** A histogram of latencies, buckets ascending, as the rollups hold one. */
function histogramOf(latencies: number[]) {
  const counts = new Map<number, number>();
  for (const ms of latencies) counts.set(bucketOf(ms), (counts.get(bucketOf(ms)) ?? 0) + 1);
  return [...counts].sort((a, b) => a[0] - b[0]).map(([bucket, requests]) => ({ bucket, requests }));
}

/** The latency measured at nearest rank ⌈q·n⌉. */
const nearestRank = (latencies: number[], q: number) => {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1] as number;
};

const within1Percent = (estimate: number, measured: number) =>
  expect(Math.abs(estimate - measured)).toBeLessThanOrEqual(measured * 0.01);

describe('histogramQuantile', () => {
  it('when half the requests are fast and half slow, then p50 is the fast bucket (rank 10 of 20) and p51 and p95 the slow one', () => {
    // Arrange
    const buckets = [
      { bucket: 300, requests: 10 },
      { bucket: 400, requests: 10 },
    ];
    const max = bucketStart(401);

    // Act
    const [p50, p51, p95] = [0.5, 0.51, 0.95].map((q) => histogramQuantile(buckets, q, max));

    // Assert: each is its bucket's middle, inside the bucket.
    expect(p50).toBeGreaterThanOrEqual(bucketStart(300));
    expect(p50).toBeLessThan(bucketStart(301));
    for (const slow of [p51, p95]) {
      expect(slow).toBeGreaterThanOrEqual(bucketStart(400));
      expect(slow).toBeLessThan(bucketStart(401));
    }
  });

  it('when the rank falls on the last request of a bucket, then that bucket answers, not the next', () => {
    // Arrange: 3 + 1 requests; p75 is rank 3, the third request of the first bucket.
    const buckets = [
      { bucket: 100, requests: 3 },
      { bucket: 500, requests: 1 },
    ];

    // Act
    const p75 = histogramQuantile(buckets, 0.75, bucketStart(501));

    // Assert
    expect(p75).toBeLessThan(bucketStart(101));
  });

  it('when the window holds one request, then every quantile is within 1 % of it and never above it', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 3_000_000, noNaN: true }), (latency) => {
        // Arrange
        const buckets = histogramOf([latency]);

        for (const q of [0, 0.5, 0.95, 0.99, 1]) {
          // Act
          const estimate = histogramQuantile(buckets, q, latency);

          // Assert
          within1Percent(estimate, latency);
          expect(estimate).toBeLessThanOrEqual(latency);
        }
      }),
    );
  });

  it('when q is 0, then the first request (rank 1) answers, not rank 0', () => {
    // Arrange
    const buckets = [
      { bucket: 10, requests: 5 },
      { bucket: 20, requests: 5 },
    ];

    // Act
    const p0 = histogramQuantile(buckets, 0, bucketStart(21));

    // Assert
    expect(p0).toBeGreaterThanOrEqual(bucketStart(10));
    expect(p0).toBeLessThan(bucketStart(11));
  });

  it('when the largest latency measured is below its bucket’s middle, then p100 is that latency, never above it', () => {
    // Arrange: the one request of bucket 400 sits at the very start of it.
    const max = bucketStart(400);
    const buckets = [
      { bucket: 200, requests: 9 },
      { bucket: 400, requests: 1 },
    ];

    // Act
    const p100 = histogramQuantile(buckets, 1, max);

    // Assert
    expect(p100).toBe(max);
  });

  it('when a latency lies exactly on a bucket’s lower edge, then its estimate is still within 1 %', () => {
    for (const b of [0, 1, 250, 500, 998]) {
      // Arrange
      const latency = bucketStart(b);
      const buckets = [{ bucket: b, requests: 1 }];

      // Act
      const estimate = histogramQuantile(buckets, 0.5, Number.POSITIVE_INFINITY);

      // Assert
      within1Percent(estimate, latency);
    }
  });

  it('when the histogram holds no request, then the answer is the largest latency given, nothing above it', () => {
    // Act / Assert
    expect(histogramQuantile([], 0.95, 42)).toBe(42);
  });

  it('when any latencies are binned, then p50, p95 and p99 are within 1 % of the latency at nearest rank ⌈q·n⌉ and never above the max', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.01, max: 3_000_000, noNaN: true }), { minLength: 1, maxLength: 300 }),
        (latencies) => {
          // Arrange
          const buckets = histogramOf(latencies);
          const max = Math.max(...latencies);

          for (const q of [0.5, 0.95, 0.99]) {
            // Act
            const estimate = histogramQuantile(buckets, q, max);

            // Assert
            within1Percent(estimate, nearestRank(latencies, q));
            expect(estimate).toBeLessThanOrEqual(max);
          }
        },
      ),
    );
  });

  it('when q grows, then the quantile never falls', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ bucket: fc.integer({ min: 0, max: 999 }), requests: fc.integer({ min: 1, max: 50 }) }),
          {
            minLength: 1,
            maxLength: 30,
          },
        ),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (raw, a, b) => {
          // Arrange: one entry per bucket, ascending, as the rollups give them.
          const byBucket = new Map(raw.map((r) => [r.bucket, r.requests]));
          const buckets = [...byBucket]
            .sort((x, y) => x[0] - y[0])
            .map(([bucket, requests]) => ({ bucket, requests }));
          const [low, high] = a <= b ? [a, b] : [b, a];

          // Act / Assert
          expect(histogramQuantile(buckets, low, Number.POSITIVE_INFINITY)).toBeLessThanOrEqual(
            histogramQuantile(buckets, high, Number.POSITIVE_INFINITY),
          );
        },
      ),
    );
  });
});
