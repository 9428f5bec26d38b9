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

/** Each call another client address, so only the global bounds apply. */
let addresses = 0;
const own = () => ({ source: `198.51.100.${++addresses}` });

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

describe('hashing slots (a bounded semaphore for scrypt), all sources together', () => {
  it('when more hashes come than slots and queue together hold, then the excess is refused at once with a retryable 503', async () => {
    const slots = createHashingSlots({ concurrency: 2, maxWaiting: 3, perSource: 3, maxWaitMs: 60_000 });
    const held = Array.from({ length: 8 }, heldHash);

    const outcomes = held.map((h) =>
      slots.run(h.hash, own()).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
    );
    await settle();
    const load = slots.load;
    for (const h of held) h.finish();
    const results = await Promise.all(outcomes);

    expect(load).toEqual({ running: 2, waiting: 3, sources: 5 });
    expect(results.slice(0, 5)).toEqual(Array(5).fill({ value: 'hashed' }));
    for (const refused of results.slice(5)) expect(refused).toMatchObject({ error: BUSY });
    expect(slots.load).toEqual({ running: 0, waiting: 0, sources: 0 });
  });

  it('when a running hash ends, then the first waiting one takes its slot, in arrival order', async () => {
    const slots = createHashingSlots({ concurrency: 1, maxWaiting: 2, perSource: 3, maxWaitMs: 60_000 });
    const order: number[] = [];
    const held = Array.from({ length: 3 }, heldHash);
    const runs = held.map((h, i) =>
      slots.run(async () => {
        order.push(i);
        return h.hash();
      }, own()),
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
    const slots = createHashingSlots({ concurrency: 1, maxWaiting: 5, perSource: 3, maxWaitMs: 1_000 });
    const running = heldHash();
    const first = slots.run(running.hash, own());
    const waiting = slots.run(heldHash().hash, own()).catch((error: unknown) => error);

    await vi.advanceTimersByTimeAsync(1_000);

    expect(await waiting).toMatchObject(BUSY);
    expect(slots.load).toEqual({ running: 1, waiting: 0, sources: 1 });
    running.finish();
    expect(await first).toBe('hashed');
    expect(slots.load).toEqual({ running: 0, waiting: 0, sources: 0 });
  });

  it('when a hash must run (an operator command), then it waits past the queue bound and the deadline and is never refused', async () => {
    vi.useFakeTimers();
    const slots = createHashingSlots({ concurrency: 1, maxWaiting: 0, perSource: 3, maxWaitMs: 1_000 });
    const running = heldHash();
    const first = slots.run(running.hash, own());
    const refused = slots.run(heldHash().hash, own()).catch((error: unknown) => error);
    const operator = slots.run(async () => 'bootstrap hashed', { source: '(operator)', mustRun: true });

    await vi.advanceTimersByTimeAsync(5_000);
    const loadWhileHeld = slots.load;
    running.finish();

    expect(await refused).toMatchObject(BUSY);
    expect(loadWhileHeld).toEqual({ running: 1, waiting: 1, sources: 2 });
    expect(await first).toBe('hashed');
    expect(await operator).toBe('bootstrap hashed');
  });

  it('when a hash fails, then its slot is freed all the same', async () => {
    const slots = createHashingSlots({ concurrency: 1, maxWaiting: 0, perSource: 3, maxWaitMs: 1_000 });

    const failed = await slots
      .run(() => Promise.reject(new Error('scrypt failed')), own())
      .catch((e: Error) => e.message);
    const next = await slots.run(async () => 'hashed', own());

    expect(failed).toBe('scrypt failed');
    expect(next).toBe('hashed');
    expect(slots.load).toEqual({ running: 0, waiting: 0, sources: 0 });
  });
});

const SOURCE_BUSY = {
  status: 429,
  code: 'rate_limited',
  retryable: true,
  retryAfter: 1,
  message: 'Too many passwords are being checked for this address right now; retry in a moment',
};

describe('hashing slots, per source', () => {
  it('when one source sends more than its share, then it runs one at a time, its excess is a 429, and another source still gets the free slot at once', async () => {
    const slots = createHashingSlots({ concurrency: 2, maxWaiting: 8, perSource: 3, maxWaitMs: 60_000 });
    const flood = Array.from({ length: 30 }, heldHash);
    const floodRuns = flood.map((h) =>
      slots.run(h.hash, { source: '203.0.113.66' }).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
    );
    await settle();
    const loadInFlood = slots.load;

    const owner = await slots.run(async () => 'owner hashed', { source: '192.0.2.10' });
    for (const h of flood) h.finish();
    const results = await Promise.all(floodRuns);

    expect(loadInFlood).toEqual({ running: 1, waiting: 2, sources: 1 });
    expect(owner).toBe('owner hashed');
    expect(results.slice(0, 3)).toEqual(Array(3).fill({ value: 'hashed' }));
    for (const refused of results.slice(3)) expect(refused).toMatchObject({ error: SOURCE_BUSY });
    expect(slots.load).toEqual({ running: 0, waiting: 0, sources: 0 });
  });

  it('when slots free up, then they go round the waiting sources in turn, not in arrival order', async () => {
    const slots = createHashingSlots({ concurrency: 1, maxWaiting: 8, perSource: 3, maxWaitMs: 60_000 });
    const order: string[] = [];
    const queued = (source: string) => {
      const h = heldHash();
      const run = slots.run(
        async () => {
          order.push(source);
          return h.hash();
        },
        { source },
      );
      return { ...h, run };
    };
    const runs = [queued('a'), queued('a'), queued('a'), queued('b'), queued('c')];
    await settle();

    for (const r of runs) {
      r.finish();
      await settle();
    }
    await Promise.all(runs.map((r) => r.run));

    expect(order).toEqual(['a', 'b', 'c', 'a', 'a']);
  });

  it('when a waiting source times out, then its place is given up and it no longer counts against its share', async () => {
    vi.useFakeTimers();
    const slots = createHashingSlots({ concurrency: 1, maxWaiting: 8, perSource: 2, maxWaitMs: 1_000 });
    const running = heldHash();
    const first = slots.run(running.hash, { source: 'a' });
    const waiting = slots.run(heldHash().hash, { source: 'a' }).catch((error: unknown) => error);
    const over = await slots.run(heldHash().hash, { source: 'a' }).catch((error: unknown) => error);

    await vi.advanceTimersByTimeAsync(1_000);
    const again = slots.run(async () => 'hashed again', { source: 'a' });
    running.finish();

    expect(over).toMatchObject(SOURCE_BUSY);
    expect(await waiting).toMatchObject(BUSY);
    expect(await first).toBe('hashed');
    expect(await again).toBe('hashed again');
    expect(slots.load).toEqual({ running: 0, waiting: 0, sources: 0 });
  });
});
