/**
 * For `expect.poll` and `vi.waitFor` on what shows after a call (a charge, a log line, a page's text):
 * the stack answers in milliseconds, but the suite's files share two cores in CI, where vitest's
 * 1 s default has run out. A bound against hangs, not a speed check.
 */
export const EVENTUALLY = { timeout: 15_000, interval: 100 };
