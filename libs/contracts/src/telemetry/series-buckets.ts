import { z } from 'zod';
import { optionalQueryInteger } from '../http/query-integer.js';

/**
 * Time series for charts: the metrics and usage answers carry their window cut into buckets,
 * counted by the service that owns the data. Buckets are aligned to UTC (a 60-minute bucket starts on
 * the hour, 1,440 at midnight), so a bucket is the same span whatever the window, and whole minutes
 * can be read from per-minute rollups. The window's first and last buckets hold only the part of them
 * inside the window.
 */

/** Bucket sizes in minutes; each divides a UTC day, so buckets never straddle midnight. */
export const SERIES_BUCKET_LADDER = [1, 5, 15, 60, 360, 1440] as const;

/** The chosen size keeps a chart at about this many points (the 30-day window: 120 of 6 hours). */
export const SERIES_TARGET_POINTS = 120;

/** A size the caller picks may give at most this many (a day by the minute); more is 400. */
export const SERIES_MAX_POINTS = 1440;

export const SERIES_BUCKET_MINUTES = { min: 1, max: 1440 } as const;

/** The smallest size of the ladder that cuts the window into at most SERIES_TARGET_POINTS buckets. */
export function seriesBucketMinutes(windowMinutes: number): number {
  return (
    SERIES_BUCKET_LADDER.find((size) => windowMinutes <= size * SERIES_TARGET_POINTS) ??
    SERIES_BUCKET_MINUTES.max
  );
}

/**
 * The starts of the UTC-aligned buckets that [from, to) touches, oldest first: window ÷ size of them,
 * one more when the window does not start on a bucket boundary.
 */
export function seriesBucketStarts(from: Date, to: Date, bucketMinutes: number): Date[] {
  const size = bucketMinutes * 60_000;
  const starts: Date[] = [];
  for (let at = Math.floor(from.getTime() / size) * size; at < to.getTime(); at += size) {
    starts.push(new Date(at));
  }
  return starts;
}

/** `?bucket_minutes=`: optional, 1-1,440; left out, the ladder decides. */
export const BucketMinutes = optionalQueryInteger('bucket_minutes', SERIES_BUCKET_MINUTES).meta({
  description: `Bucket size of \`series\` in minutes (UTC-aligned). Left out: the smallest of ${SERIES_BUCKET_LADDER.join(', ')} that gives at most ${SERIES_TARGET_POINTS} buckets. A size that cuts the window into more than ${SERIES_MAX_POINTS.toLocaleString('en-US')} buckets is 400`,
});

/** The same bound on the bus, where the gateway has already read the query. */
export const BucketMinutesField = z
  .number()
  .int()
  .min(SERIES_BUCKET_MINUTES.min)
  .max(SERIES_BUCKET_MINUTES.max)
  .optional();

/** Refuses a bucket size that would cut the window into more than SERIES_MAX_POINTS buckets. */
export function refineSeriesPoints(
  value: { window_minutes: number; bucket_minutes?: number | undefined },
  ctx: z.RefinementCtx,
) {
  const { window_minutes: window, bucket_minutes: bucket } = value;
  // A field already refused on its own (refinements still run after such issues) is not judged again.
  const valid = (n: number | undefined): n is number => Number.isInteger(n) && (n as number) >= 1;
  if (!valid(window) || !valid(bucket) || window <= bucket * SERIES_MAX_POINTS) return;
  ctx.addIssue({
    code: 'custom',
    path: ['bucket_minutes'],
    message: `bucket_minutes must be at least ${Math.ceil(window / SERIES_MAX_POINTS)} for a window of ${window} minutes (at most ${SERIES_MAX_POINTS} buckets)`,
  });
}

/** The series' bucket size: the caller's, or the ladder's for the window. */
export const resolveBucketMinutes = (m: { window_minutes: number; bucket_minutes?: number | undefined }) =>
  m.bucket_minutes ?? seriesBucketMinutes(m.window_minutes);

export const SeriesBucketStart = z.iso.datetime().meta({
  description:
    'Start of the bucket (UTC); the first and last buckets count only their part inside the window',
});
