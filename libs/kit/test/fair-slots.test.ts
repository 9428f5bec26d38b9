import { AppError, ErrorCode } from '@tm/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFairSlots, type FairSlotSettings } from '../src/fair-slots.js';

/** Work that finishes when the test says so, so every count below is exact. */
function heldWork() {
  let finish: () => void = () => undefined;
  const done = new Promise<string>((resolve) => {
    finish = () => resolve('done');
  });
  return { work: () => done, finish };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

const refusals = {
  source: () => new AppError(ErrorCode.RateLimited, 'your share is taken', { retryAfter: 1 }),
  busy: () => new AppError(ErrorCode.ServiceUnavailable, 'all slots are taken', { retryAfter: 1 }),
  waitedTooLong: (ownShare: boolean) =>
    ownShare
      ? new AppError(ErrorCode.RateLimited, 'waited behind your own work', { retryAfter: 1 })
      : new AppError(ErrorCode.ServiceUnavailable, 'waited behind everyone', { retryAfter: 1 }),
};

const slotsOf = (settings: Partial<FairSlotSettings>) =>
  createFairSlots(
    { concurrency: 4, perSourceRunning: 2, perSourceHeld: 4, maxWaiting: 16, maxWaitMs: 60_000, ...settings },
    refusals,
  );

const OWN_SHARE = { status: 429, code: 'rate_limited', retryable: true, retryAfter: 1 };
const BUSY = { status: 503, code: 'service_unavailable', retryable: true, retryAfter: 1 };

/** Queue a piece of work for `source` that records when it starts and finishes when told. */
function queued(slots: ReturnType<typeof slotsOf>, order: string[], source: string, cost?: number) {
  const h = heldWork();
  const run = slots
    .run(
      async () => {
        order.push(source);
        return h.work();
      },
      { source, ...(cost !== undefined ? { cost } : {}) },
    )
    .then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
  return { ...h, run };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('fair slots, per source', () => {
  it('when one source sends more than its share, then it runs its share, waits up to its hold, is refused 429 past it, and another source still starts at once', async () => {
    const slots = slotsOf({ concurrency: 4, perSourceRunning: 2, perSourceHeld: 4 });
    const order: string[] = [];
    const flood = Array.from({ length: 8 }, () => queued(slots, order, 'a'));
    await settle();
    const loadInFlood = slots.load;

    const other = queued(slots, order, 'b');
    await settle();
    const startedWhileFlooded = [...order];
    other.finish();
    for (const f of flood) f.finish();
    const results = await Promise.all(flood.map((f) => f.run));

    expect(loadInFlood).toEqual({ running: 2, waiting: 2, sources: 1 });
    expect(startedWhileFlooded).toEqual(['a', 'a', 'b']);
    expect(await other.run).toEqual({ value: 'done' });
    expect(results.slice(0, 4)).toEqual(Array(4).fill({ value: 'done' }));
    for (const refused of results.slice(4)) expect(refused).toMatchObject({ error: OWN_SHARE });
    expect(slots.load).toEqual({ running: 0, waiting: 0, sources: 0 });
  });

  it('when slots free up, then they go round the waiting sources in turn, not in arrival order', async () => {
    const slots = slotsOf({ concurrency: 1, perSourceRunning: 1, perSourceHeld: 4 });
    const order: string[] = [];
    const runs = [
      queued(slots, order, 'a'),
      queued(slots, order, 'a'),
      queued(slots, order, 'a'),
      queued(slots, order, 'b'),
      queued(slots, order, 'c'),
      queued(slots, order, 'b'),
    ];
    await settle();

    for (const r of runs) {
      r.finish();
      await settle();
    }
    await Promise.all(runs.map((r) => r.run));

    expect(order).toEqual(['a', 'b', 'c', 'a', 'b', 'a']);
  });

  it('when work costs more than one slot, then it takes that many of its share, and is capped at the share', async () => {
    const slots = slotsOf({ concurrency: 4, perSourceRunning: 2, perSourceHeld: 4 });
    const order: string[] = [];
    const heavy = [queued(slots, order, 'a', 2), queued(slots, order, 'a', 5)];
    const light = queued(slots, order, 'b', 1);
    await settle();
    const loadWhileFirstRuns = slots.load;
    const startedFirst = [...order];

    heavy[0]?.finish();
    await settle();
    const loadAfter = slots.load;
    heavy[1]?.finish();
    light.finish();
    await Promise.all([...heavy, light].map((r) => r.run));

    expect(startedFirst).toEqual(['a', 'b']);
    expect(loadWhileFirstRuns).toEqual({ running: 3, waiting: 1, sources: 2 });
    expect(loadAfter).toEqual({ running: 3, waiting: 0, sources: 2 });
    expect(order).toEqual(['a', 'b', 'a']);
  });

  it('when costly work waits for free slots, then cheaper work of other sources does not pass it for ever', async () => {
    const slots = slotsOf({ concurrency: 2, perSourceRunning: 2, perSourceHeld: 4 });
    const order: string[] = [];
    const first = queued(slots, order, 'b', 1);
    const heavy = queued(slots, order, 'a', 2);
    await settle();
    const later = queued(slots, order, 'c', 1);
    await settle();
    const beforeFree = [...order];

    first.finish();
    await settle();
    const afterFree = [...order];
    heavy.finish();
    later.finish();
    await Promise.all([first.run, heavy.run, later.run]);

    expect(beforeFree).toEqual(['b']);
    expect(afterFree).toEqual(['b', 'a']);
    expect(order).toEqual(['b', 'a', 'c']);
  });
});

describe('fair slots, all sources together', () => {
  it('when the queue of all sources is full, then the next is refused at once with a retryable 503', async () => {
    const slots = slotsOf({ concurrency: 1, perSourceRunning: 1, perSourceHeld: 4, maxWaiting: 2 });
    const order: string[] = [];
    const runs = ['a', 'b', 'c', 'd'].map((s) => queued(slots, order, s));
    await settle();
    const load = slots.load;
    for (const r of runs) r.finish();
    const results = await Promise.all(runs.map((r) => r.run));

    expect(load).toEqual({ running: 1, waiting: 2, sources: 3 });
    expect(results.slice(0, 3)).toEqual(Array(3).fill({ value: 'done' }));
    expect(results[3]).toMatchObject({ error: BUSY });
  });

  it('when a wait runs out behind its own work, then it is a 429; behind everyone else’s, a 503; and neither holds a place', async () => {
    vi.useFakeTimers();
    const slots = slotsOf({ concurrency: 2, perSourceRunning: 1, perSourceHeld: 4, maxWaitMs: 1_000 });
    const order: string[] = [];
    const aRunning = queued(slots, order, 'a');
    const bRunning = queued(slots, order, 'b');
    const aWaiting = queued(slots, order, 'a');
    const cWaiting = queued(slots, order, 'c');

    await vi.advanceTimersByTimeAsync(1_000);
    const loadAfter = slots.load;
    aRunning.finish();
    bRunning.finish();

    expect(await aWaiting.run).toMatchObject({ error: OWN_SHARE });
    expect(await cWaiting.run).toMatchObject({ error: BUSY });
    expect(loadAfter).toEqual({ running: 2, waiting: 0, sources: 2 });
    expect(await aRunning.run).toEqual({ value: 'done' });
    expect(slots.load).toEqual({ running: 0, waiting: 0, sources: 0 });
  });

  it('when work is held after it ends, then its result comes at once and its slots free up only after the hold', async () => {
    vi.useFakeTimers();
    const slots = slotsOf({ concurrency: 1, perSourceRunning: 1 });
    const order: string[] = [];
    const held = await slots.run(async () => 'answered', { source: 'a', holdAfter: () => 500 });
    const next = queued(slots, order, 'b');
    await vi.advanceTimersByTimeAsync(499);
    const beforeHoldEnds = [...order];
    await vi.advanceTimersByTimeAsync(1);
    next.finish();

    expect(held).toBe('answered');
    expect(beforeHoldEnds).toEqual([]);
    expect(order).toEqual(['b']);
    expect(await next.run).toEqual({ value: 'done' });
    expect(slots.load).toEqual({ running: 0, waiting: 0, sources: 0 });
  });

  it('when work fails, then its slots are freed all the same and the next waiter starts', async () => {
    const slots = slotsOf({ concurrency: 1, perSourceRunning: 1 });
    const failing = slots.run(() => Promise.reject(new Error('work failed')), { source: 'a' });
    const next = slots.run(async () => 'next', { source: 'b' });

    expect(await failing.catch((e: Error) => e.message)).toBe('work failed');
    expect(await next).toBe('next');
    expect(slots.load).toEqual({ running: 0, waiting: 0, sources: 0 });
  });
});
