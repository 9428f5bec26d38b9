// The quality bench's BM25 baseline (quality/bm25-ranking.ts) on a corpus small enough to compute by hand.
import { describe, expect, it } from 'vitest';
import { Bm25Ranking } from './quality/bm25-ranking.js';
import { analyseText } from './quality/bm25-terms.js';

// After analysis: d1 [cat, sat] (2 terms), d2 [dog, bark, cat] (3), d3 [bird, sing] (2); N 3, avgdl 7/3.
const corpus = new Bm25Ranking([
  { id: 'd1', text: 'The cat sat.' },
  { id: 'd2', text: 'A dog barked at the cat!' },
  { id: 'd3', text: 'Birds were singing' },
]);

describe('analyseText', () => {
  it('when a text is analysed, then it is lower-cased words, stop words out, Porter-stemmed', () => {
    expect(analyseText("What did Caroline's dogs do at the Pride parade?")).toEqual([
      'carolin',
      'dog',
      'pride',
      'parad',
    ]);
  });
});

describe('Bm25Ranking', () => {
  it('when a term is in 2 of 3 documents, then its IDF is ln(1 + 1.5 / 2.5)', () => {
    expect(corpus.idf('cat')).toBeCloseTo(Math.log(1.6), 12);
    expect(corpus.idf('bird')).toBeCloseTo(Math.log(1 + 2.5 / 1.5), 12);
  });

  it('when "cats" is asked, then the shorter document scores higher and the one without it is not returned', () => {
    // d1: ln 1.6 · 2.2 / (1 + 1.2 · (0.25 + 0.75 · 2 / (7/3))) = 0.499176; d2 (length 3): 0.420817.
    const [d1, d2, d3] = corpus.scores('What about cats?');

    expect(d1).toBeCloseTo(0.499176, 6);
    expect(d2).toBeCloseTo(0.420817, 6);
    expect(d3).toBe(0);
    expect(corpus.rank('What about cats?', 25)).toEqual(['d1', 'd2']);
  });

  it('when a question has several terms, then their scores add up and the top k are returned', () => {
    expect(corpus.rank('barking cats', 25)).toEqual(['d2', 'd1']);
    expect(corpus.rank('barking cats', 1)).toEqual(['d2']);
    expect(corpus.rank('unrelated words', 25)).toEqual([]);
  });

  it('when two documents score the same, then the later one comes first', () => {
    const ties = new Bm25Ranking([
      { id: 'first', text: 'we went hiking' },
      { id: 'second', text: 'we went hiking' },
    ]);

    expect(ties.rank('hiking', 25)).toEqual(['second', 'first']);
  });
});
