/** Reading the `series` of the metrics and usage answers, worked out here from first principles. */

const MINUTE = 60_000;

/** Start (ISO) of the UTC-aligned bucket of `bucketMinutes` that holds an instant. */
export const bucketOf = (at: string | Date, bucketMinutes: number) => {
  const size = bucketMinutes * MINUTE;
  return new Date(Math.floor(new Date(at).getTime() / size) * size).toISOString();
};

/** Every bucket the window [from, to) touches, oldest first: what a series must list. */
export function bucketStarts(window: { from: string; to: string }, bucketMinutes: number): string[] {
  const starts: string[] = [];
  const end = Date.parse(window.to);
  for (let at = Date.parse(bucketOf(window.from, bucketMinutes)); at < end; at += bucketMinutes * MINUTE) {
    starts.push(new Date(at).toISOString());
  }
  return starts;
}

/**
 * The series a window must have: every bucket `empty`, except those `filled` names (by bucket start).
 * Fails on a filled bucket outside the window, so a test cannot expect what the answer cannot hold.
 */
export function expectedSeries<T extends object>(
  window: { from: string; to: string },
  bucketMinutes: number,
  empty: T,
  filled: Record<string, Partial<Record<keyof T, unknown>>>,
) {
  const starts = bucketStarts(window, bucketMinutes);
  for (const from of Object.keys(filled)) {
    if (!starts.includes(from)) throw new Error(`bucket ${from} is not in the window`);
  }
  return starts.map((from) => ({ from, ...empty, ...filled[from] }));
}

/** The series' counts added up, to compare with the answer's totals. */
export function sumSeries<K extends string>(series: Array<Record<K, number>>, keys: readonly K[]) {
  return Object.fromEntries(keys.map((k) => [k, series.reduce((sum, p) => sum + p[k], 0)])) as Record<
    K,
    number
  >;
}
