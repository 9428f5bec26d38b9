import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHashingSlots } from '../src/domain/identity/hashing-slots.js';

/** A hash that finishes when the test says so, so every count below is exact. */
function heldHash() {
  let finish: () => void = () => undefined;
  const done = new Promise<string>((resolve) => {
    finish = () => resolve('hashed');
  });
  return { hash: () => done, finish };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

const BUSY = {
  status: 503,
  code: 'service_unavailable',
  retryable: true,
  retryAfter: 1,
  message: expect.stringMatching(/retry/),
};

afterEach(() => {
  vi.useRealTimers();
});

describe('hashing slots (a bounded semaphore for scrypt)', () => {
  it('when more hashes come than slots and queue together hold, then the excess is refused at once with a retryable 503', async () => {
    const slots = createHashingSlots({ concurrency: 2, maxWaiting: 3, maxWaitMs: 60_000 });
    const held = Array.from({ length: 8 }, heldHash);

    const outcomes = held.map((h) =>
      slots.run(h.hash).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
    );
    await settle();
    const load = slots.load;
    for (const h of held) h.finish();
    const results = await Promise.all(outcomes);

    expect(load).toEqual({ running: 2, waiting: 3 });
    expect(results.slice(0, 5)).toEqual(Array(5).fill({ value: 'hashed' }));
    for (const refused of results.slice(5)) expect(refused).toMatchObject({ error: BUSY });
    expect(slots.load).toEqual({ running: 0, waiting: 0 });
  });

  it('when a running hash ends, then the first waiting one takes its slot, in arrival order', async () => {
    const slots = createHashingSlots({ concurrency: 1, maxWaiting: 2, maxWaitMs: 60_000 });
    const order: number[] = [];
    const held = Array.from({ length: 3 }, heldHash);
    const runs = held.map((h, i) =>
      slots.run(async () => {
        order.push(i);
        return h.hash();
      }),
    );
    await settle();
    const whileFirst = [...order];

    held[0]?.finish();
    await runs[0];
    await settle();
    const afterFirst = [...order];
    held[1]?.finish();
    held[2]?.finish();
    await Promise.all(runs);

    expect(whileFirst).toEqual([0]);
    expect(afterFirst).toEqual([0, 1]);
    expect(order).toEqual([0, 1, 2]);
  });

  it('when a hash waits longer than the bound, then it is refused and leaves the queue', async () => {
    vi.useFakeTimers();
    const slots = createHashingSlots({ concurrency: 1, maxWaiting: 5, maxWaitMs: 1_000 });
    const running = heldHash();
    const first = slots.run(running.hash);
    const waiting = slots.run(heldHash().hash).catch((error: unknown) => error);

    await vi.advanceTimersByTimeAsync(1_000);

    expect(await waiting).toMatchObject(BUSY);
    expect(slots.load).toEqual({ running: 1, waiting: 0 });
    running.finish();
    expect(await first).toBe('hashed');
    expect(slots.load).toEqual({ running: 0, waiting: 0 });
  });

  it('when a hash must run (an operator command), then it waits past the queue bound and the deadline and is never refused', async () => {
    vi.useFakeTimers();
    const slots = createHashingSlots({ concurrency: 1, maxWaiting: 0, maxWaitMs: 1_000 });
    const running = heldHash();
    const first = slots.run(running.hash);
    const refused = slots.run(heldHash().hash).catch((error: unknown) => error);
    const operator = slots.run(async () => 'bootstrap hashed', { mustRun: true });

    await vi.advanceTimersByTimeAsync(5_000);
    const loadWhileHeld = slots.load;
    running.finish();

    expect(await refused).toMatchObject(BUSY);
    expect(loadWhileHeld).toEqual({ running: 1, waiting: 1 });
    expect(await first).toBe('hashed');
    expect(await operator).toBe('bootstrap hashed');
  });

  it('when a hash fails, then its slot is freed all the same', async () => {
    const slots = createHashingSlots({ concurrency: 1, maxWaiting: 0, maxWaitMs: 1_000 });

    const failed = await slots
      .run(() => Promise.reject(new Error('scrypt failed')))
      .catch((e: Error) => e.message);
    const next = await slots.run(async () => 'hashed');

    expect(failed).toBe('scrypt failed');
    expect(next).toBe('hashed');
    expect(slots.load).toEqual({ running: 0, waiting: 0 });
  });
});
