import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fieldIssues,
  MetricsQuery,
  SERIES_BUCKET_LADDER,
  SERIES_TARGET_POINTS,
  seriesBucketMinutes,
  seriesBucketStarts,
  USAGE_WINDOW_MINUTES,
  UsageQuery,
} from '../src/index.js';

const MINUTE = 60_000;

describe('the bucket ladder of a series', () => {
  it.each([
    [1, 1],
    [60, 1],
    [120, 1],
    [121, 5],
    [600, 5],
    [601, 15],
    [1_440, 15],
    [1_800, 15],
    [1_801, 60],
    [7_200, 60],
    [7_201, 360],
    [43_200, 360],
  ])('when the window is %i minutes, then buckets are %i minutes', (window, bucket) => {
    expect(seriesBucketMinutes(window)).toBe(bucket);
  });

  it('when any window is given, then its size is the smallest of the ladder giving at most 120 buckets', () => {
    fc.assert(
      fc.property(fc.integer(USAGE_WINDOW_MINUTES), (window) => {
        const size = seriesBucketMinutes(window);
        expect(SERIES_BUCKET_LADDER).toContain(size);
        expect(Math.ceil(window / size)).toBeLessThanOrEqual(SERIES_TARGET_POINTS);
        const smaller = SERIES_BUCKET_LADDER.filter((s) => s < size);
        for (const s of smaller) expect(Math.ceil(window / s)).toBeGreaterThan(SERIES_TARGET_POINTS);
      }),
    );
  });
});

describe('the buckets of a window', () => {
  it('when the window starts on a boundary, then it has window ÷ size buckets, oldest first', () => {
    const to = new Date('2026-11-25T12:00:00.000Z');
    const from = new Date(to.getTime() - 60 * MINUTE);

    const starts = seriesBucketStarts(from, to, 15).map((d) => d.toISOString());

    expect(starts).toEqual([
      '2026-11-25T11:00:00.000Z',
      '2026-11-25T11:15:00.000Z',
      '2026-11-25T11:30:00.000Z',
      '2026-11-25T11:45:00.000Z',
    ]);
  });

  it('when the window starts inside a bucket, then that bucket comes first, from its UTC-aligned start', () => {
    const to = new Date('2026-11-25T12:00:30.500Z');
    const from = new Date(to.getTime() - 2 * MINUTE);

    const starts = seriesBucketStarts(from, to, 1).map((d) => d.toISOString());

    expect(starts).toEqual([
      '2026-11-25T11:58:00.000Z',
      '2026-11-25T11:59:00.000Z',
      '2026-11-25T12:00:00.000Z',
    ]);
  });

  it('when 6-hour or day buckets are used, then they start at 00, 06, 12, 18 UTC, and at midnight', () => {
    const to = new Date('2026-11-27T07:00:00.000Z');
    const from = new Date(to.getTime() - 2 * 1_440 * MINUTE);

    expect(seriesBucketStarts(from, to, 360)[0]?.toISOString()).toBe('2026-11-25T06:00:00.000Z');
    expect(seriesBucketStarts(from, to, 1_440).map((d) => d.toISOString())).toEqual([
      '2026-11-25T00:00:00.000Z',
      '2026-11-26T00:00:00.000Z',
      '2026-11-27T00:00:00.000Z',
    ]);
  });

  it('when any window and size are given, then the buckets cover it exactly once, each aligned', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer({ min: 1, max: 1_440 }),
        (toMs, window, size) => {
          const to = new Date(toMs);
          const from = new Date(toMs - window * MINUTE);
          const starts = seriesBucketStarts(from, to, size).map((d) => d.getTime());
          expect(starts[0]).toBeLessThanOrEqual(from.getTime());
          expect((starts[0] as number) + size * MINUTE).toBeGreaterThan(from.getTime());
          expect(starts.at(-1)).toBeLessThan(to.getTime());
          expect((starts.at(-1) as number) + size * MINUTE).toBeGreaterThanOrEqual(to.getTime());
          for (const s of starts) expect(s % (size * MINUTE)).toBe(0);
          expect(starts.length).toBeLessThanOrEqual(Math.ceil(window / size) + 1);
        },
      ),
    );
  });
});

describe('?bucket_minutes=', () => {
  it('when it is left out, then it reads as undefined and the window default holds', () => {
    expect(MetricsQuery.parse({})).toEqual({ window_minutes: 60 });
    expect(UsageQuery.parse({ window_minutes: '90' })).toEqual({ window_minutes: 90 });
  });

  it('when it cuts the window into at most 1,440 buckets, then it is taken', () => {
    expect(MetricsQuery.parse({ window_minutes: '1440', bucket_minutes: '1' })).toEqual({
      window_minutes: 1_440,
      bucket_minutes: 1,
    });
    expect(UsageQuery.parse({ window_minutes: '43200', bucket_minutes: '30' })).toEqual({
      window_minutes: 43_200,
      bucket_minutes: 30,
    });
  });

  it.each([
    [
      { window_minutes: '1441', bucket_minutes: '1' },
      'bucket_minutes must be at least 2 for a window of 1441 minutes (at most 1440 buckets)',
    ],
    [
      { window_minutes: '43200', bucket_minutes: '29' },
      'bucket_minutes must be at least 30 for a window of 43200 minutes (at most 1440 buckets)',
    ],
    [{ bucket_minutes: '0' }, 'bucket_minutes must be at least 1'],
    [{ bucket_minutes: '1441' }, 'bucket_minutes must be at most 1440'],
    [{ bucket_minutes: '' }, 'bucket_minutes must be a whole number'],
    [{ bucket_minutes: '1.5' }, 'bucket_minutes must be a whole number'],
  ])('when the query is %j, then it is refused: %s', (query, message) => {
    for (const schema of [MetricsQuery, UsageQuery]) {
      const result = schema.safeParse(query);

      expect(result.success).toBe(false);
      expect(result.error && fieldIssues(result.error)).toEqual([{ path: 'bucket_minutes', message }]);
    }
  });
});
