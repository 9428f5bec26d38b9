import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createPerTurnCoalescer } from '../src/per-turn-coalescer.js';

/** A batcher that records its batches. */
function recording(options: { maxItems: number; maxSize?: number }) {
  const batches: number[][] = [];
  const add = createPerTurnCoalescer<number>({ ...options, sizeOf: (n) => n, flush: (b) => batches.push(b) });
  return { add, batches };
}

describe('createPerTurnCoalescer', () => {
  it('when items are added in one turn, then they are flushed together after it, and the next turn starts a new batch', async () => {
    const { add, batches } = recording({ maxItems: 10 });

    add(1);
    add(2);
    add(3);
    expect(batches).toEqual([]); // not before the turn ends
    await nextTurn();
    add(4);
    await nextTurn();

    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('when the batch is full, then it is flushed at once and the rest of the turn goes into the next', async () => {
    const { add, batches } = recording({ maxItems: 2 });

    add(1);
    add(2);
    const atOnce = batches.map((b) => [...b]);
    add(3);
    await nextTurn();

    expect(atOnce).toEqual([[1, 2]]);
    expect(batches).toEqual([[1, 2], [3]]);
  });

  it('when an item would pass the size bound, then the queue goes first and the item starts the next batch', async () => {
    const { add, batches } = recording({ maxItems: 10, maxSize: 5 });

    add(2);
    add(2);
    add(3); // 2 + 2 + 3 > 5
    await nextTurn();

    expect(batches).toEqual([[2, 2], [3]]);
  });
});
