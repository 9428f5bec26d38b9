import { describe, expect, it } from 'vitest';
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
