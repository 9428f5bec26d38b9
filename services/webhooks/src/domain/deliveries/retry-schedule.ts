/** What follows an attempt that failed at `step` (0 for the first): due again after a delay, or the end. */
export function nextAfterFailure(schedule: readonly number[], step: number, now = Date.now()): Date | null {
  const delay = schedule[step];
  return delay === undefined ? null : new Date(now + delay);
}

/** The whole period a delivery is tried for, in words (the reason an endpoint is disabled gives it). */
export function describePeriod(schedule: readonly number[]): string {
  let ms = schedule.reduce((sum, d) => sum + d, 0);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['min', 60_000],
    ['s', 1_000],
  ] as const) {
    const n = Math.floor(ms / size);
    if (n > 0) parts.push(`${n} ${unit}`);
    ms -= n * size;
  }
  if (ms > 0 || parts.length === 0) parts.push(`${ms} ms`);
  return parts.join(' ');
}
