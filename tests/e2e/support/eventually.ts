import { vi } from 'vitest';

/**
 * For what shows after a call (a charge, a log line, a page's text): the stack answers in
 * milliseconds, but the suite's files share two cores in CI, where vitest's 1 s default has run out.
 * A bound against hangs, not a speed check. `expect.poll(…, EVENTUALLY)` takes it too.
 */
export const EVENTUALLY = { timeout: 15_000, interval: 100 };

/**
 * The one way the e2e files wait for state they then assert: runs `probe` until it returns without
 * throwing and returns what it returned. The probe says what "there" means with `expect`, so a
 * time-out fails with the last read's own assertion diff (the why), not "timed out".
 *
 * It is vitest's `vi.waitFor` with the bound above, not a loop of our own: `vi.waitFor` already
 * re-runs the probe on an interval (never two at once), returns its value and on time-out rethrows
 * its last error, which the hand-written `eventually`/`until` loops this replaced each redid, some
 * returning the last value silently instead. `expect.poll` fits one matcher on one value but does not
 * hand the value back, which the tests need to assert the whole answer; it stays for the page checks.
 * A read that is an error, not "not yet", is returned from the probe and asserted after the wait, so
 * it fails at once instead of being retried. Unit tests (services, libs, infra/dev) call `vi.waitFor`
 * themselves: they must not import from here. Code outside a test (the global setup, the fault
 * runner, the launcher) waits with infra/dev/wait-for.ts: `waitFor`, or `pollUntil` where running
 * out of time is an outcome to report (the fault runner's recovery and settled totals).
 */
export function eventually<T>(
  probe: () => T | Promise<T>,
  options: { timeout?: number; interval?: number } = {},
): Promise<T> {
  return vi.waitFor(probe, { ...EVENTUALLY, ...options });
}
