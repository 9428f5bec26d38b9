import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RESTART_POLICY, decideRestart } from '../restart-policy.js';

const policy = { initialDelayMs: 100, maxDelayMs: 1_000, healthyAfterMs: 5_000, maxFastFailures: 5 };

describe('decideRestart', () => {
  it('when a child fails fast again and again, then the delay doubles up to the cap and it gives up at the limit', () => {
    const decisions = [0, 1, 2, 3, 4].map((before) => decideRestart(policy, before, 10));

    expect(decisions).toEqual([
      { action: 'restart', delayMs: 100, failuresInARow: 1 },
      { action: 'restart', delayMs: 200, failuresInARow: 2 },
      { action: 'restart', delayMs: 400, failuresInARow: 3 },
      { action: 'restart', delayMs: 800, failuresInARow: 4 },
      { action: 'give up', failuresInARow: 5 },
    ]);
  });

  it('when a child ran healthily for a while before it failed, then the count starts again', () => {
    expect(decideRestart(policy, 4, 5_000)).toEqual({ action: 'restart', delayMs: 100, failuresInARow: 1 });
  });

  it('when failures go on, then no delay exceeds the cap and it never gives up before the limit', () => {
    fc.assert(
      fc.property(fc.nat(50), fc.nat(60_000), (before, ranForMs) => {
        const decision = decideRestart(DEFAULT_RESTART_POLICY, before, ranForMs);
        if (decision.action === 'restart') {
          expect(decision.delayMs).toBeLessThanOrEqual(DEFAULT_RESTART_POLICY.maxDelayMs);
          expect(decision.failuresInARow).toBeLessThan(DEFAULT_RESTART_POLICY.maxFastFailures);
        } else {
          expect(decision.failuresInARow).toBeGreaterThanOrEqual(DEFAULT_RESTART_POLICY.maxFastFailures);
        }
      }),
    );
  });
});
