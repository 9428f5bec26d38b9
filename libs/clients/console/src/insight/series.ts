import type { ResponseOf } from '@text-memory/sdk';

/**
 * The time series the metrics and usage answers carry for charts (docs/decisions/telemetry.md, "Time series for
 * charts"): one entry per UTC-aligned bucket of the window, oldest first, empty ones included
 * (metrics percentiles null there), in buckets of `bucket_minutes`.
 */
export type MetricsAnswer = ResponseOf<'metrics'>;
export type UsageAnswer = ResponseOf<'controlUsage'>;

/** The window lengths the pages offer (the API takes 1-43,200 minutes). */
export const WINDOWS = [
  { minutes: 15, label: '15 min' },
  { minutes: 60, label: '1 h' },
  { minutes: 1440, label: '24 h' },
  { minutes: 10080, label: '7 d' },
  { minutes: 43200, label: '30 d' },
] as const;
