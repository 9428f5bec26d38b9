import { describe, expect, it } from 'vitest';
import { pollUntil, waitFor } from '../wait-for.js';

/** A check that holds from its `n`th call on; how often it was called. */
function holdsFrom(n: number) {
  const calls = { count: 0 };
  return { calls, check: async () => ++calls.count >= n };
}

describe('pollUntil and waitFor (infra/dev/wait-for.ts)', () => {
  it('when the check comes to hold within the bound, then pollUntil is true and waitFor resolves, each after as many calls as it took', async () => {
    const polled = holdsFrom(3);
    const waited = holdsFrom(3);

    const result = await pollUntil(polled.check, { timeoutMs: 5_000, intervalMs: 1 });
    await waitFor('the third call', waited.check, { timeoutMs: 5_000, intervalMs: 1 });

    expect(result).toBe(true);
    expect([polled.calls.count, waited.calls.count]).toEqual([3, 3]);
  });

  it('when the check never holds, then pollUntil is false past the bound and waitFor throws naming what it waited for', async () => {
    const never = async () => false;

    const result = await pollUntil(never, { timeoutMs: 30, intervalMs: 5 });
    const waited = waitFor('a thing that never comes', never, { timeoutMs: 30, intervalMs: 5 });

    expect(result).toBe(false);
    await expect(waited).rejects.toThrow('timed out after 0.03 s waiting for a thing that never comes');
  });

  it('when the check throws, then both reject with its error at once: a failing check is not "not yet"', async () => {
    const broken = async (): Promise<boolean> => {
      throw new Error('cannot read');
    };

    await expect(pollUntil(broken, { timeoutMs: 5_000 })).rejects.toThrow('cannot read');
    await expect(waitFor('anything', broken, { timeoutMs: 5_000 })).rejects.toThrow('cannot read');
  });
});
