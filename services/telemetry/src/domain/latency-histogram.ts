/**
 * The latency buckets of the rollups (telemetry_latency_bucket in the request_rollups migration):
 * bucket b holds [0.01 ms × 1.02^b, 0.01 ms × 1.02^(b+1)), so its geometric middle is within 1 % of
 * every latency in it.
 */
const bucketMiddle = (bucket: number) => 0.01 * 1.02 ** (bucket + 0.5);

/**
 * The q-quantile of a histogram (buckets in ascending order): the middle of the bucket holding the
 * request of nearest rank ⌈q·n⌉, so within 1 % of a latency that was measured at that rank; never above
 * the largest latency measured.
 */
export function histogramQuantile(
  buckets: Array<{ bucket: number; requests: number }>,
  q: number,
  max: number,
) {
  const n = buckets.reduce((sum, b) => sum + b.requests, 0);
  const rank = Math.max(1, Math.ceil(q * n));
  let seen = 0;
  for (const b of buckets) {
    seen += b.requests;
    if (seen >= rank) return Math.min(bucketMiddle(b.bucket), max);
  }
  return max;
}
