/** The lookback window ending now, as reported in every windowed answer. */
export function lookback(minutes: number, now = new Date()) {
  const from = new Date(now.getTime() - minutes * 60_000);
  return { from, to: now, report: { minutes, from: from.toISOString(), to: now.toISOString() } };
}

/** Latencies are reported to the microsecond; more digits would only be float noise. */
export const roundMs = (ms: number) => Math.round(ms * 1000) / 1000;

/** Rates to six places, so 1/3 reads 0.333333. */
export const rate = (part: number, whole: number) =>
  whole === 0 ? 0 : Math.round((part / whole) * 1e6) / 1e6;
