/** How the console writes numbers, money, latencies, rates and times: in the reader's locale. */

export const formatCount = (n: number) => n.toLocaleString();

/** Latency in milliseconds: two decimals below 10 ms, where the differences are, whole ones above. */
export const formatMs = (ms: number | null | undefined) =>
  ms === null || ms === undefined
    ? '–'
    : `${ms.toLocaleString(undefined, { maximumFractionDigits: ms < 10 ? 2 : 0 })} ms`;

/** A ratio 0-1 as a percentage. */
export const formatRate = (ratio: number) =>
  ratio.toLocaleString(undefined, { style: 'percent', maximumFractionDigits: 2 });

/** Sandbox prices are fractions of a cent (a write is 0.0001 USD): show them to the micro-dollar. */
export const formatUsd = (usd: number) =>
  usd.toLocaleString(undefined, {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 2,
    maximumFractionDigits: 6,
  });

/** A bucket's start on a chart axis: the time for short windows, the date and time for long ones. */
export const formatBucket = (iso: string, bucketMinutes: number) =>
  new Date(iso).toLocaleString(
    undefined,
    bucketMinutes >= 60
      ? { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }
      : { hour: '2-digit', minute: '2-digit' },
  );

/** An anomaly's observed value or threshold in its own unit. */
export const formatSignal = (value: number, unit: 'ratio' | 'ms' | 'count') =>
  unit === 'ratio' ? formatRate(value) : unit === 'ms' ? formatMs(value) : formatCount(value);
