import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitBound {
  timeoutMs: number;
  intervalMs?: number;
}

/**
 * Poll `check` until it returns true: true then, false once `timeoutMs` has passed without it. For a
 * wait whose time-out is an outcome to report, not an error (the fault runner measures recovery).
 */
export async function pollUntil(
  check: () => Promise<boolean>,
  { timeoutMs, intervalMs = 250 }: WaitBound,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await sleep(intervalMs);
  }
  return true;
}

/** Poll `check` until it returns true; throw once `timeoutMs` has passed. */
export async function waitFor(what: string, check: () => Promise<boolean>, bound: WaitBound): Promise<void> {
  if (!(await pollUntil(check, bound)))
    throw new Error(`timed out after ${bound.timeoutMs / 1000} s waiting for ${what}`);
}
