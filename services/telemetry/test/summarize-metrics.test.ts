import type { RequestRecord } from '@tm/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarizeMetrics } from '../src/domain/summarize-metrics.js';
import { percentileCont, record, store, uniqueTenant } from './support/factories.js';
import { ownDatabase } from './support/own-database.js';

// The summary's window ends at the call, so records are placed a few minutes before it: in a database
// of this file's own, since the shared one's anomaly watch judges every tenant active right now.
const db = ownDatabase('summarize_metrics');
beforeAll(() => db.open());
afterAll(() => db.close());

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const EXACT = { exactPercentilesUpTo: 10_000 };

describe('summarizeMetrics', () => {
  it('when a tenant has no request in the window, then no_data with zero counts and rates, no operations, and every bucket of the series empty', async () => {
    // Arrange
    const tenantId = uniqueTenant();

    // Act
    const summary = await summarizeMetrics({ tenant_id: tenantId, window_minutes: 60 }, EXACT);

    // Assert
    expect(summary).toMatchObject({
      state: 'no_data',
      window: { minutes: 60 },
      percentiles: 'exact',
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
    });
    expect(summary.series.length).toBeGreaterThanOrEqual(60);
    expect(summary.series.every((p) => p.requests === 0 && p.p50_ms === null)).toBe(true);
  });

  it('when operations differ in volume, then latency and mix list them busiest first, ties by name, with shares and versions by requests', async () => {
    // Arrange: recall 3, write 2, delete 2 (a tie), and a route without an operation name.
    const tenantId = uniqueTenant();
    const of = (operation: string | null, latencies: number[], version: string) =>
      latencies.map((latency_ms) =>
        record(tenantId, {
          latency_ms,
          occurred_at: minutesAgo(2),
          operation,
          ...(operation === null ? { method: 'GET', route: '/api/v1/infrastructure/usage' } : {}),
          deployment_version: version,
        }),
      );
    await store([
      ...of('memory.write', [10, 20], 'v-b'),
      ...of('memory.recall', [1, 2, 3], 'v-a'),
      ...of('memory.delete', [5, 6], 'v-b'),
      ...of(null, [9], 'v-c'),
    ]);

    // Act
    const summary = await summarizeMetrics({ tenant_id: tenantId, window_minutes: 5 }, EXACT);

    // Assert
    expect(summary.state).toBe('measured');
    expect(summary.latency.map((l) => [l.operation, l.requests])).toEqual([
      ['memory.recall', 3],
      ['memory.delete', 2],
      ['memory.write', 2],
      ['GET /api/v1/infrastructure/usage', 1],
    ]);
    expect(summary.operation_mix).toEqual([
      { operation: 'memory.recall', requests: 3, share: 0.375 },
      { operation: 'memory.delete', requests: 2, share: 0.25 },
      { operation: 'memory.write', requests: 2, share: 0.25 },
      { operation: 'GET /api/v1/infrastructure/usage', requests: 1, share: 0.125 },
    ]);
    expect(summary.deployment_versions).toEqual([
      { deployment_version: 'v-b', requests: 4 },
      { deployment_version: 'v-a', requests: 3 },
      { deployment_version: 'v-c', requests: 1 },
    ]);
  });

  it('when requests fail, time out or are refused, then quality counts each by its outcome and rates them to six places', async () => {
    // Arrange: 12 requests; a 500, a 504 timeout, a 400, a 499 hang-up, a 401 and a 403.
    const tenantId = uniqueTenant();
    const fates: Array<Pick<RequestRecord, 'status' | 'error_code'>> = [
      { status: 500, error_code: 'internal_error' },
      { status: 504, error_code: 'upstream_timeout' },
      { status: 400, error_code: 'validation_failed' },
      { status: 499, error_code: null },
      { status: 401, error_code: 'authentication_required' },
      { status: 403, error_code: 'permission_denied' },
    ];
    await store(
      Array.from({ length: 12 }, (_, i) =>
        record(tenantId, { latency_ms: 1 + i, occurred_at: minutesAgo(1.5), ...(fates[i] ?? {}) }),
      ),
    );

    // Act
    const summary = await summarizeMetrics({ tenant_id: tenantId, window_minutes: 5 }, EXACT);

    // Assert
    expect(summary.quality).toEqual({
      requests: 12,
      accepted: 6,
      errors: 4,
      server_errors: 2,
      timeouts: 1,
      blocked: 2,
      error_rate: 0.333333,
      timeout_rate: 0.083333,
      blocked_rate: 0.166667,
    });
    expect(summary.latency).toEqual([
      {
        operation: 'memory.write',
        requests: 12,
        p50_ms: 6.5,
        p95_ms: expect.closeTo(
          percentileCont(
            Array.from({ length: 12 }, (_, i) => 1 + i),
            0.95,
          ),
          6,
        ),
        p99_ms: expect.closeTo(11.89, 6),
        max_ms: 12,
      },
    ]);
  });

  it('when the window holds more requests than the exact bound, then the answer says its percentiles come from the histogram, and the series adds up to quality', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    await store(
      [1, 2, 3, 4].map((minutes) =>
        record(tenantId, { latency_ms: 10 * minutes, occurred_at: minutesAgo(minutes) }),
      ),
    );

    // Act
    const summary = await summarizeMetrics(
      { tenant_id: tenantId, window_minutes: 10 },
      { exactPercentilesUpTo: 3 },
    );

    // Assert
    expect(summary).toMatchObject({ state: 'measured', percentiles: 'histogram', bucket_minutes: 1 });
    expect(summary.series.reduce((sum, p) => sum + p.requests, 0)).toBe(summary.quality.requests);
    expect(summary.latency[0]?.max_ms).toBe(40);
  });

  it('when the caller names a bucket size, then the series is cut by it; left out, the ladder picks it for the window', async () => {
    // Arrange
    const tenantId = uniqueTenant();

    // Act
    const asked = await summarizeMetrics(
      { tenant_id: tenantId, window_minutes: 60, bucket_minutes: 15 },
      EXACT,
    );
    const ladder = await summarizeMetrics({ tenant_id: tenantId, window_minutes: 600 }, EXACT);

    // Assert
    expect(asked.bucket_minutes).toBe(15);
    expect(asked.series.length).toBeGreaterThanOrEqual(4);
    expect(asked.series.length).toBeLessThanOrEqual(5);
    expect(asked.series.every((p) => Date.parse(p.from) % (15 * 60_000) === 0)).toBe(true);
    expect(ladder.bucket_minutes).toBe(5);
  });
});
