import { type MetricsSummary, seriesBucketStarts } from '@tm/contracts';
import type { SqlRunner } from '@tm/kit';
import { exactWindowSeries, type Window, windowSeries } from '../data-access/window-aggregates.js';
import { histogramQuantile } from './latency-histogram.js';
import { roundMs } from './time-window.js';

type Point = Omit<MetricsSummary['series'][number], 'from'>;

const EMPTY: Point = { requests: 0, errors: 0, blocked: 0, p50_ms: null, p95_ms: null };

/**
 * The window cut into UTC-aligned buckets, oldest first, every bucket present (an empty one is zeros
 * with null percentiles). Percentiles are computed as the window's: from the records when `exact`,
 * else from the rollups' histogram. One statement either way.
 */
export async function metricsSeries(
  run: SqlRunner,
  w: Window & { requests: number },
  bucketMinutes: number,
  exact: boolean,
): Promise<MetricsSummary['series']> {
  const points = new Map<number, Point>();
  if (w.requests > 0 && exact) {
    for (const row of await exactWindowSeries(run, w, bucketMinutes)) {
      const [p50, p95] = row.percentiles;
      points.set(row.slot.getTime(), { ...pointOf(row), p50_ms: roundMs(p50), p95_ms: roundMs(p95) });
    }
  } else if (w.requests > 0) {
    const { counts, histogram } = await windowSeries(run, w, bucketMinutes);
    // Bucket starts come back as JSON text (ISO 8601 with an offset): keyed by their instant.
    const bySlot = new Map<number, typeof histogram>();
    for (const h of histogram) bySlot.set(Date.parse(h.slot), [...(bySlot.get(Date.parse(h.slot)) ?? []), h]);
    for (const row of counts) {
      const buckets = bySlot.get(Date.parse(row.slot)) ?? [];
      points.set(Date.parse(row.slot), {
        ...pointOf(row),
        p50_ms: roundMs(histogramQuantile(buckets, 0.5, row.max)),
        p95_ms: roundMs(histogramQuantile(buckets, 0.95, row.max)),
      });
    }
  }
  return seriesBucketStarts(w.from, w.to, bucketMinutes).map((start) => ({
    from: start.toISOString(),
    ...(points.get(start.getTime()) ?? EMPTY),
  }));
}

const pointOf = (row: { requests: number; errors: number; blocked: number }) => ({
  requests: row.requests,
  errors: row.errors,
  blocked: row.blocked,
});
