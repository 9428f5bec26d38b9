import { describe, expect, it } from 'vitest';
import { cueTerms, legacyCueTerms, STOPWORDS } from '../src/domain/cue-terms.js';
import { termOf } from '../src/domain/tokenize.js';

const terms = (list: Array<{ term: string }>) => list.map((t) => t.term);

describe('cueTerms', () => {
  it('when a cue mixes function and content words, then content words score and function words break ties', () => {
    const cue = cueTerms('What does Alice drink in the morning?');
    expect(terms(cue.content)).toEqual(['alic', 'drink', 'morn']);
    expect(cue.content.map((t) => t.word)).toEqual(['alice', 'drink', 'morning']);
    expect(terms(cue.function)).toEqual(['what', termOf('does'), 'in', 'the']);
  });

  it('when a cue has only function words, then all of its terms are content', () => {
    const cue = cueTerms('To be, or not to be');
    expect(terms(cue.content)).toEqual(['to', 'be', 'or', 'not']);
    expect(cue.function).toEqual([]);
  });

  it('when a contraction or a repeated inflection is in the cue, then it counts once, as a function word', () => {
    const cue = cueTerms("I'm painting, she painted");
    expect(terms(cue.content)).toEqual(['paint']);
    expect(terms(cue.function)).toEqual(['im', 'she']);
  });

  it('then the stopword list is lower case single words, as the tokenizer splits them', () => {
    for (const word of STOPWORDS) expect(word).toMatch(/^[a-z]+$/);
  });
});

describe('legacyCueTerms (deterministic-lexical-v1)', () => {
  it('when a cue mixes function and content words, then only unstemmed content words are kept', () => {
    expect(legacyCueTerms('What does Alice drink in the mornings?')).toEqual(['alice', 'drink', 'mornings']);
    expect(legacyCueTerms('To be, or not to be')).toEqual(['to', 'be', 'or', 'not']);
  });
});
