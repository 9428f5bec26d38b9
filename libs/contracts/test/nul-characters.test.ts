import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NUL_MESSAGE, type NulCheckWork, nulCharacterIssues } from '../src/index.js';

const NUL = '\u0000';

/** Values in `input`: every string, number, boolean, null, list and object, counted once each. */
function valuesIn(input: unknown): number {
  let count = 0;
  const stack = [input];
  while (stack.length > 0) {
    const value = stack.pop();
    count++;
    if (value !== null && typeof value === 'object') stack.push(...Object.values(value));
  }
  return count;
}

/** `levels` of lists and objects in turn around `leaf`. */
const nested = (levels: number, leaf: unknown): unknown => {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 ? { a: value } : [value];
  return value;
};

const checked = (input: unknown) => {
  const work: NulCheckWork = { visited: 0, segments: 0 };
  return { issues: nulCharacterIssues(input, work), work, n: valuesIn(input) };
};

// Strings with and without NULs, so issues (and the paths built for them) are found often.
const text = fc.oneof(fc.string(), fc.constantFrom(NUL, `a${NUL}b`, 'plain'));
const key = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom(`k${NUL}`, 'k'));
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.constant(null),
    fc.array(tie('json'), { maxLength: 6 }),
    fc.dictionary(key, tie('json'), { maxKeys: 6 }),
  ),
}));
const deep = fc.tuple(fc.integer({ min: 1, max: 5_000 }), fc.oneof(text, fc.constant(`x${NUL}`)));
const wide = fc.array(fc.tuple(key, text), { maxLength: 2_000 }).map((pairs) => Object.fromEntries(pairs));
const shapes = fc.oneof(
  json,
  deep.map(([levels, leaf]) => nested(levels, leaf)),
  wide,
  // Many deep branches, each with a NUL at its bottom: the most paths, each as long as it can be.
  fc.integer({ min: 1, max: 300 }).map((levels) => Array.from({ length: 30 }, () => nested(levels, NUL))),
);

describe('nulCharacterIssues', () => {
  it('when any input is checked, then each value is visited at most once and the paths built cost at most 20 segments per value (linear, not quadratic)', () => {
    fc.assert(
      fc.property(shapes, (input) => {
        const { work, n } = checked(input);
        expect(work.visited).toBeLessThanOrEqual(n);
        // At most 20 issues, each with a path no longer than the input is deep.
        expect(work.segments).toBeLessThanOrEqual(20 * n);
        expect(work.visited + work.segments).toBeLessThanOrEqual(21 * n);
      }),
      { numRuns: 300 },
    );
  });

  it('when a list nests 100,000 levels around a NUL, then one issue at the full path, each level visited once and its path built once', () => {
    const { issues, work } = checked({ email: nested(100_000, NUL) });

    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toBe(NUL_MESSAGE);
    expect(issues[0]?.path.split('.')).toHaveLength(100_001);
    expect(work).toEqual({ visited: 100_002, segments: 100_001 });
  });

  it('when strings and keys hold NULs, then each is reported at its own path (a key as its object is read)', () => {
    expect(nulCharacterIssues({ a: [`x${NUL}`, 'ok'], [`k${NUL}`]: 1, b: { c: NUL } })).toEqual([
      { path: 'k\\u0000', message: `field names ${NUL_MESSAGE}` },
      { path: 'a.0', message: NUL_MESSAGE },
      { path: 'b.c', message: NUL_MESSAGE },
    ]);
    expect(nulCharacterIssues(NUL)).toEqual([{ path: '(body)', message: NUL_MESSAGE }]);
    expect(nulCharacterIssues({ a: ['fine', 1, null] })).toEqual([]);
  });

  it('when an input holds more than 20 NULs, then 20 issues are reported', () => {
    expect(nulCharacterIssues(Array.from({ length: 500 }, () => NUL))).toHaveLength(20);
  });
});
