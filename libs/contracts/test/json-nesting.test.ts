import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonDepth, jsonNestsDeeperThan } from '../src/index.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('jsonNestsDeeperThan', () => {
  it('when any JSON value is scanned as bytes or as text, then it is deeper than a limit exactly when its parsed depth is', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 8 }), (value, limit) => {
        const text = JSON.stringify(value);
        const deeper = jsonDepth(value, 1_000) > limit;
        expect(jsonNestsDeeperThan(utf8(text), limit)).toBe(deeper);
        expect(jsonNestsDeeperThan(text, limit)).toBe(deeper);
      }),
      { numRuns: 500 },
    );
  });

  it('when brackets, quotes and backslashes sit inside strings or keys, then they do not count', () => {
    const text = JSON.stringify({ '[[[': '{{{ \\" [[[', b: ['"]]]', '\\'], 'ü[': '😀{{' });
    expect(jsonNestsDeeperThan(utf8(text), 2)).toBe(false);
    expect(jsonNestsDeeperThan(utf8(text), 1)).toBe(true);
  });

  it('when 200 KB of brackets nest 100,000 levels, then it is deeper than 64 without being parsed', () => {
    expect(jsonNestsDeeperThan(utf8(`{"email":${'['.repeat(100_000)}`), 64)).toBe(true);
  });
});
