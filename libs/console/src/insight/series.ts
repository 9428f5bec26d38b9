import type { ResponseOf } from '@text-memory/sdk';

/**
 * The time series the metrics and usage answers carry for charts (docs/decisions.md, "Time series for
 * charts ([P12])"): one entry per UTC-aligned bucket of the window, oldest first, empty ones included.
 *
 * LOCAL SHAPE, until branch p12-series (which adds `bucket_minutes` and `series` to both answers and
 * regenerates the SDK's types) is merged: typed here as that branch defines it, and optional, so the
 * charts are simply not drawn by a server that does not send a series. Once merged, these become the
 * SDK's own types.
 */
export interface MetricsPoint {
  from: string;
  requests: number;
  errors: number;
  blocked: number;
  /** Null in a bucket without requests. */
  p50_ms: number | null;
  p95_ms: number | null;
}

export interface UsagePoint {
  from: string;
  requests: number;
  units: number;
  recorded_charge_usd: number;
}

export interface Series<P> {
  bucket_minutes?: number;
  series?: P[];
}

export type MetricsAnswer = ResponseOf<'metrics'> & Series<MetricsPoint>;
export type UsageAnswer = ResponseOf<'controlUsage'> & Series<UsagePoint>;

/** The window lengths the pages offer (the API takes 1-43,200 minutes). */
export const WINDOWS = [
  { minutes: 15, label: '15 min' },
  { minutes: 60, label: '1 h' },
  { minutes: 1440, label: '24 h' },
  { minutes: 10080, label: '7 d' },
  { minutes: 43200, label: '30 d' },
] as const;
