import type CircuitBreaker from 'opossum';

/**
 * How often an open breaker asks its service whether it is back. A ping nobody answers fails at
 * once (no responders) and an answered one takes about 0.3 ms, so four a second per gateway and
 * service cost nothing, and a recovered service takes calls within a quarter second.
 */
export const RECOVERY_PROBE_MS = 250;

/**
 * While `breaker` is open, call `ping` (which must bypass the breaker and close it when the service
 * answers) every `intervalMs`. Opossum alone probes with one real call after its reset timeout, and
 * a probe that fails just before the service is ready refuses calls for another whole timeout
 * (5 s by default) while the service already answers: a fault campaign saw exactly that.
 */
export function closeOnRecovery(
  breaker: CircuitBreaker,
  ping: () => Promise<unknown>,
  intervalMs = RECOVERY_PROBE_MS,
): void {
  let timer: NodeJS.Timeout | undefined;
  let asking = false;
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  breaker.on('open', () => {
    if (timer) return;
    timer = setInterval(() => {
      if (asking) return; // a ping waits up to its deadline; never two at once
      asking = true;
      ping()
        .catch(() => {}) // still away: the next tick asks again
        .finally(() => {
          asking = false;
        });
    }, intervalMs);
    timer.unref();
  });
  breaker.on('close', stop);
  breaker.on('shutdown', stop);
}
