import { describe, expect, it } from 'vitest';
import { createRememberedRefusals } from '../src/domain/operations/remembered-refusals.js';

const WINDOW_ENDS = 900_000;

/** A memory on a clock the test moves by hand. */
function memoryAt(options: { maxEntries?: number; rememberMs?: number } = {}) {
  const clock = { now: 0 };
  const refusals = createRememberedRefusals({
    maxEntries: options.maxEntries ?? 100,
    rememberMs: options.rememberMs ?? 1_000,
    now: () => clock.now,
  });
  return { clock, refusals };
}

describe('remembered password-attempt refusals', () => {
  it('when the store has refused a bucket, then the refusal is repeated with its window end until it is time to ask again', () => {
    const { clock, refusals } = memoryAt({ rememberMs: 1_000 });

    refusals.remember('password:email:a@example.test', WINDOW_ENDS, refusals.generation);
    const atOnce = refusals.refusedUntil('password:email:a@example.test');
    clock.now = 999;
    const justBefore = refusals.refusedUntil('password:email:a@example.test');
    clock.now = 1_000;
    const whenDue = refusals.refusedUntil('password:email:a@example.test');

    expect([atOnce, justBefore, whenDue]).toEqual([WINDOW_ENDS, WINDOW_ENDS, undefined]);
    expect(refusals.size).toBe(0);
  });

  it('when the window ends before it is time to ask again, then the refusal ends with the window', () => {
    const { clock, refusals } = memoryAt({ rememberMs: 60_000 });

    refusals.remember('password-from:203.0.113.7', 500, refusals.generation);
    const before = refusals.refusedUntil('password-from:203.0.113.7');
    clock.now = 500;
    const after = refusals.refusedUntil('password-from:203.0.113.7');

    expect([before, after]).toEqual([500, undefined]);
  });

  it('when a window has already ended, then it is not remembered', () => {
    const { clock, refusals } = memoryAt();
    clock.now = 10_000;

    refusals.remember('password-from:203.0.113.7', 10_000, refusals.generation);

    expect(refusals.refusedUntil('password-from:203.0.113.7')).toBeUndefined();
    expect(refusals.size).toBe(0);
  });

  it('when a bucket is forgotten (a success cleared it), then its next attempt is not refused, and other buckets still are', () => {
    const { refusals } = memoryAt();
    refusals.remember('password:email:a@example.test', WINDOW_ENDS, refusals.generation);
    refusals.remember('password-from:203.0.113.7', WINDOW_ENDS, refusals.generation);

    refusals.forget('password:email:a@example.test');

    expect(refusals.refusedUntil('password:email:a@example.test')).toBeUndefined();
    expect(refusals.refusedUntil('password-from:203.0.113.7')).toBe(WINDOW_ENDS);
  });

  it('when an answer was read before a bucket was forgotten, then it is not remembered: it may predate the reset', () => {
    const { refusals } = memoryAt();
    const askedAt = refusals.generation;

    refusals.forget('password:email:a@example.test');
    refusals.remember('password:email:a@example.test', WINDOW_ENDS, askedAt);

    expect(refusals.refusedUntil('password:email:a@example.test')).toBeUndefined();
  });

  it('when more buckets are refused than it holds, then the oldest are forgotten and its size stays at the bound', () => {
    const { refusals } = memoryAt({ maxEntries: 3 });

    for (let i = 1; i <= 5; i++)
      refusals.remember(`password-from:203.0.113.${i}`, WINDOW_ENDS, refusals.generation);

    expect(refusals.size).toBe(3);
    const held = [1, 2, 3, 4, 5].map((i) => refusals.refusedUntil(`password-from:203.0.113.${i}`));
    expect(held).toEqual([undefined, undefined, WINDOW_ENDS, WINDOW_ENDS, WINDOW_ENDS]);
  });

  it('when a bucket is refused again, then it counts as the newest and outlives older ones at the bound', () => {
    const { refusals } = memoryAt({ maxEntries: 2 });
    refusals.remember('a', WINDOW_ENDS, refusals.generation);
    refusals.remember('b', WINDOW_ENDS, refusals.generation);

    refusals.remember('a', WINDOW_ENDS, refusals.generation);
    refusals.remember('c', WINDOW_ENDS, refusals.generation);

    expect(['a', 'b', 'c'].map((bucket) => refusals.refusedUntil(bucket))).toEqual([
      WINDOW_ENDS,
      undefined,
      WINDOW_ENDS,
    ]);
  });

  it('when it is set to remember for 0 ms, then nothing is remembered', () => {
    const { refusals } = memoryAt({ rememberMs: 0 });

    refusals.remember('password-from:203.0.113.7', WINDOW_ENDS, refusals.generation);

    expect(refusals.refusedUntil('password-from:203.0.113.7')).toBeUndefined();
    expect(refusals.size).toBe(0);
  });
});
