import type { SqlRunner } from '@tm/kit';
import {
  exactPercentiles,
  type PartCounts,
  type Window,
  windowRollup,
} from '../data-access/window-aggregates.js';
import { histogramQuantile } from './latency-histogram.js';

/** p50, p95, p99 in ms. */
export type Percentiles = [number, number, number];

/** Percentiles of every request of the window, whatever its operation. */
export const ALL_OPERATIONS = '*';

export interface WindowStatistics {
  /** Exact counts per operation and answering version. */
  parts: PartCounts[];
  /** Per operation, and ALL_OPERATIONS for the whole window. */
  percentiles: Map<string, Percentiles>;
  /** Whether the percentiles are exact (percentile_cont) or from the latency histogram. */
  exactPercentiles: boolean;
}

const QUANTILES = [0.5, 0.95, 0.99] as const;

/**
 * Counts come from the rollups and are always exact. Percentiles are exact (continuous, from the
 * records) while the window holds at most `exactUpTo` requests, so a small window reads as it always
 * did; above that they come from the rollups' latency histogram, within 1 % of a latency measured at
 * the nearest rank, at a cost that does not grow with the requests.
 */
export async function windowStatistics(
  run: SqlRunner,
  w: Window,
  exactUpTo: number,
): Promise<WindowStatistics> {
  const { parts, buckets } = await windowRollup(run, w);
  const total = parts.reduce((sum, p) => sum + p.requests, 0);
  const percentiles = new Map<string, Percentiles>();
  if (total === 0) return { parts, percentiles, exactPercentiles: true };
  if (total <= exactUpTo) {
    for (const row of await exactPercentiles(run, w)) percentiles.set(row.operation, row.percentiles);
    return { parts, percentiles, exactPercentiles: true };
  }
  const maxOf = new Map<string, number>();
  for (const p of parts) maxOf.set(p.operation, Math.max(maxOf.get(p.operation) ?? 0, p.max));
  const byOperation = new Map<string, Array<{ bucket: number; requests: number }>>();
  const overall = new Map<number, number>();
  for (const row of buckets) {
    const list = byOperation.get(row.operation) ?? [];
    list.push(row);
    byOperation.set(row.operation, list);
    overall.set(row.bucket, (overall.get(row.bucket) ?? 0) + row.requests);
  }
  const quantiles = (buckets: Array<{ bucket: number; requests: number }>, max: number) =>
    QUANTILES.map((q) => histogramQuantile(buckets, q, max)) as Percentiles;
  for (const [operation, list] of byOperation) {
    percentiles.set(operation, quantiles(list, maxOf.get(operation) ?? 0));
  }
  const all = [...overall].sort((a, b) => a[0] - b[0]).map(([bucket, requests]) => ({ bucket, requests }));
  percentiles.set(ALL_OPERATIONS, quantiles(all, Math.max(...maxOf.values())));
  return { parts, percentiles, exactPercentiles: false };
}
