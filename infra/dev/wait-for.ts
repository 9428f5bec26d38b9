import { setTimeout as sleep } from 'node:timers/promises';

/** Poll `check` until it returns true; throw once `timeoutMs` has passed. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  { timeoutMs, intervalMs = 250 }: { timeoutMs: number; intervalMs?: number },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(intervalMs);
  }
}
