/**
 * When to restart a crashed child and when to stop trying: exponential backoff over the failures in a
 * row, where a run that lasted `healthyAfterMs` counts as healthy and starts the count again. A crash
 * (kill -9, out of memory) is restarted within a second; a service that cannot start at all (bad
 * configuration, a port taken) fails fast every time and is given up on after `maxFastFailures`.
 */
export interface RestartPolicy {
  /** Delay before the first restart; doubled for each further failure in a row. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** A run at least this long was healthy: the next failure is the first in a row again. */
  healthyAfterMs: number;
  /** Give up after this many failures in a row, each within `healthyAfterMs` of its start. */
  maxFastFailures: number;
}

/**
 * 250 ms doubling to 30 s; eight fast failures in a row take about 32 s of waiting (0.25 + 0.5 + … + 16),
 * long enough for PostgreSQL or NATS to come back from a restart, short enough that a service that
 * cannot start is reported within a minute.
 */
export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialDelayMs: 250,
  maxDelayMs: 30_000,
  healthyAfterMs: 30_000,
  maxFastFailures: 8,
};

export type RestartDecision =
  | { action: 'restart'; delayMs: number; failuresInARow: number }
  | { action: 'give up'; failuresInARow: number };

/** What to do after a run of `ranForMs` ended, given the failures in a row before it. */
export function decideRestart(
  policy: RestartPolicy,
  failuresBefore: number,
  ranForMs: number,
): RestartDecision {
  const failuresInARow = ranForMs >= policy.healthyAfterMs ? 1 : failuresBefore + 1;
  if (failuresInARow >= policy.maxFastFailures) return { action: 'give up', failuresInARow };
  const delayMs = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (failuresInARow - 1));
  return { action: 'restart', delayMs, failuresInARow };
}
