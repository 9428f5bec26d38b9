import { describe, expect, it } from 'vitest';
import { timeOrderedId } from '../src/ids.js';
import { randomBytesPooled } from '../src/random-pool.js';

describe('randomBytesPooled', () => {
  it('when ids are drawn across several refills of the pool, then each is a fresh copy and none repeats', () => {
    const drawn = Array.from({ length: 2_000 }, () => randomBytesPooled(16));
    const first = drawn[0] as Buffer;
    const copy = Buffer.from(first);
    randomBytesPooled(4_000); // forces a refill over the bytes the first id came from
    expect(first).toEqual(copy);
    expect(new Set(drawn.map((b) => b.toString('hex'))).size).toBe(drawn.length);
    expect(drawn.every((b) => b.length === 16)).toBe(true);
  });

  it('when more than the pool holds is asked for, then it refuses', () => {
    expect(() => randomBytesPooled(4_097)).toThrow(RangeError);
  });
});

describe('timeOrderedId', () => {
  it('when many are made at once, then they are version 7, distinct, and ascend in the order made', () => {
    const ids = Array.from({ length: 5_000 }, () => timeOrderedId());
    expect(
      ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)),
    ).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
