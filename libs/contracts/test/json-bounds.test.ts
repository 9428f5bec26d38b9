import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CreateTemplateMemoryRequest, fieldIssues, JSON_BOUNDS, jsonDepth } from '../src/index.js';

const nested = (levels: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 ? { a: value } : [value];
  return value;
};

describe('jsonDepth', () => {
  it('when values nest objects and lists, then each level counts once and scalars none', () => {
    expect(jsonDepth('text')).toBe(0);
    expect(jsonDepth(null)).toBe(0);
    expect(jsonDepth([])).toBe(1);
    expect(jsonDepth({ a: [1, { b: 2 }], c: 'x' })).toBe(3);
  });

  it('when a value nests n levels, then its depth is n, counted no further than the limit + 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 }), (levels) => {
        expect(jsonDepth(nested(levels), 1_000)).toBe(levels);
        expect(jsonDepth(nested(levels), 10)).toBe(Math.min(levels, 11));
      }),
    );
  });

  it('when a value nests 100,000 levels, then it is measured without overflowing the stack', () => {
    expect(jsonDepth(nested(100_000))).toBe(JSON_BOUNDS.maxDepth + 1);
  });
});

describe('CreateTemplateMemoryRequest data', () => {
  const parse = (data: Record<string, unknown>) =>
    CreateTemplateMemoryRequest.safeParse({ marketplace_template_id: 'task', data });

  it(`when a value nests up to ${JSON_BOUNDS.maxDepth} levels, then it is accepted`, () => {
    expect(parse({ title: 'x', steps: nested(JSON_BOUNDS.maxDepth) }).success).toBe(true);
  });

  it('when a value nests deeper, then 400 at that field of data and no other', () => {
    const result = parse({ title: 'x', steps: nested(200), notes: nested(3) });

    expect(result.success).toBe(false);
    expect(fieldIssues(result.error as never)).toEqual([
      { path: 'data.steps', message: `nests objects and lists deeper than ${JSON_BOUNDS.maxDepth} levels` },
    ]);
  });

  it('when the data is larger than the bound as JSON, then 400 at data', () => {
    const result = parse({ title: 'x', notes: 'é'.repeat(JSON_BOUNDS.maxBytes / 2) });

    expect(fieldIssues(result.error as never)).toEqual([
      { path: 'data', message: `must be at most ${JSON_BOUNDS.maxBytes} bytes as JSON` },
    ]);
  });
});
