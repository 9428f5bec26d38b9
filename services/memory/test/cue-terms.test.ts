import { describe, expect, it } from 'vitest';
import { cueTerms, STOPWORDS } from '../src/domain/cue-terms.js';

describe('cueTerms', () => {
  it('when a cue mixes function and content words, then only content words are scored', () => {
    expect(cueTerms('What does Alice drink in the morning?')).toEqual(['alice', 'drink', 'morning']);
  });

  it('when a cue has only function words, then all of its terms are kept', () => {
    expect(cueTerms('To be, or not to be')).toEqual(['to', 'be', 'or', 'not']);
  });

  it('then the stopword list is lower case single terms, as the tokenizer yields them', () => {
    for (const word of STOPWORDS) expect(word).toMatch(/^[a-z]+$/);
  });
});
