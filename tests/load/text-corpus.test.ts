import { describe, expect, it } from 'vitest';
import { STOPWORDS } from '../../services/memory/src/domain/cue-terms.js';
import { TextCorpus } from './text-corpus.js';

describe('TextCorpus.questionCue', () => {
  const corpus = new TextCorpus();
  const contentRanks = new Map(corpus.words.filter((w) => !STOPWORDS.has(w)).map((w, i) => [w, i + 1]));
  const questions = Array.from({ length: 2_000 }, () => corpus.questionCue().split(' '));

  it('when a question is drawn, then it is 4-8 words: function words first, then 3-5 distinct content words of the vocabulary', () => {
    for (const words of questions) {
      const content = words.filter((w) => !STOPWORDS.has(w));
      const opening = words.slice(0, words.length - content.length);

      expect(words.length).toBeGreaterThanOrEqual(4);
      expect(words.length).toBeLessThanOrEqual(8);
      expect(opening.length).toBeGreaterThan(0);
      expect(opening.every((w) => STOPWORDS.has(w))).toBe(true);
      expect(new Set(content).size).toBe(content.length);
      expect(content.length).toBeGreaterThanOrEqual(3);
      expect(content.length).toBeLessThanOrEqual(5);
      for (const word of content) expect(contentRanks.has(word), word).toBe(true);
    }
  });

  it('when many questions are drawn, then their content words span common to rare, log-uniform in rank', () => {
    const ranks = questions.flatMap((words) => words.flatMap((w) => contentRanks.get(w) ?? []));
    const share = (test: (rank: number) => boolean) => ranks.filter(test).length / ranks.length;

    // Log-uniform over ~3,900 content words: 41 % in the top 30, 17 % past rank 1,000.
    expect(share((r) => r <= 30)).toBeGreaterThan(0.3);
    expect(share((r) => r <= 30)).toBeLessThan(0.5);
    expect(share((r) => r > 30 && r <= 1_000)).toBeGreaterThan(0.3);
    expect(share((r) => r > 1_000)).toBeGreaterThan(0.1);
  });

  it('when two corpora share a seed, then they draw the same questions', () => {
    const [a, b] = [new TextCorpus({ seed: 7 }), new TextCorpus({ seed: 7 })];

    expect(Array.from({ length: 20 }, () => a.questionCue())).toEqual(
      Array.from({ length: 20 }, () => b.questionCue()),
    );
  });
});
