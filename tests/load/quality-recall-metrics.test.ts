// The quality bench's measure (quality/recall-metrics.ts) on cases small enough to count by hand.
import { describe, expect, it } from 'vitest';
import { hitAt, meanByCategory, recallAt, reciprocalRank, scoreQuestion } from './quality/recall-metrics.js';

const evidence = new Set(['a', 'b']);
const ranked = ['x', 'a', 'y', 'b'];

describe('evidence recall, hit and reciprocal rank', () => {
  it('when the evidence {a, b} comes 2nd and 4th, then recall is 0 at 1, 0.5 at 2 and 3, 1 at 4, and MRR is 1/2', () => {
    expect([1, 2, 3, 4, 25].map((k) => recallAt(evidence, ranked, k))).toEqual([0, 0.5, 0.5, 1, 1]);
    expect([1, 2, 5].map((k) => hitAt(evidence, ranked, k))).toEqual([0, 1, 1]);
    expect(reciprocalRank(evidence, ranked)).toBe(0.5);
  });

  it('when no evidence is among the results, then recall, hit and MRR are 0', () => {
    expect(recallAt(evidence, ['x', 'y'], 25)).toBe(0);
    expect(hitAt(evidence, ['x', 'y'], 5)).toBe(0);
    expect(reciprocalRank(evidence, ['x', 'y'])).toBe(0);
    expect(recallAt(evidence, [], 5)).toBe(0);
  });

  it('when the first evidence lies past the depth, then it earns no reciprocal rank', () => {
    const deep = [...Array.from({ length: 25 }, (_, i) => `n${i}`), 'a'];

    expect(reciprocalRank(evidence, deep, 25)).toBe(0);
    expect(reciprocalRank(evidence, deep, 26)).toBeCloseTo(1 / 26, 12);
  });

  it('when a result repeats an evidence turn, then it counts once', () => {
    expect(recallAt(evidence, ['a', 'a'], 2)).toBe(0.5);
  });

  it('when a question is scored, then it gets recall at 1, 5, 10 and 25, hit@5 and MRR@25', () => {
    expect(scoreQuestion(['a', 'b'], ranked)).toEqual({
      recall: { 1: 0, 5: 1, 10: 1, 25: 1 },
      hit5: 1,
      mrr: 0.5,
    });
  });
});

describe('meanByCategory', () => {
  it('when questions of several categories are scored, then each category and categories 1-5 together are averaged over questions', () => {
    const scored = [
      { category: 2, scores: scoreQuestion(['a', 'b'], ranked) },
      { category: 1, scores: scoreQuestion(['a'], ['a']) },
      { category: 1, scores: scoreQuestion(['a'], ['x']) },
      { category: 9, scores: scoreQuestion(['a'], ['a']) },
    ];

    const means = meanByCategory(scored);

    expect(means.map((m) => [m.category, m.questions])).toEqual([
      [1, 2],
      [2, 1],
      [9, 1],
      ['overall', 3],
    ]);
    expect(means[0]?.mean).toEqual({ recall: { 1: 0.5, 5: 0.5, 10: 0.5, 25: 0.5 }, hit5: 0.5, mrr: 0.5 });
    const overall = means[3]?.mean;
    expect(overall?.recall[1]).toBeCloseTo(1 / 3, 12);
    expect(overall?.recall[5]).toBeCloseTo(2 / 3, 12);
    expect(overall?.mrr).toBeCloseTo(1.5 / 3, 12);
  });
});
