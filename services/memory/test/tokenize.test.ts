import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { termOf, tokenize } from '../src/domain/tokenize.js';
import { tokenizeV1 } from '../src/domain/tokenize-v1.js';
import { MAX_TERM_LENGTH, words } from '../src/domain/words.js';

describe('tokenize', () => {
  it('when text has case, punctuation and repeats, then it yields distinct lower-case terms in order', () => {
    expect(tokenize('The cat, the CAT; the hat!')).toEqual(['the', 'cat', 'hat']);
  });

  it('when words differ only by inflection, then they share a term (Snowball English)', () => {
    expect(termOf('mesmerizes')).toBe(termOf('mesmerized'));
    expect(termOf('going')).toBe(termOf('go'));
    expect(termOf('adoption')).toBe(termOf('adopting'));
  });

  it('when a verb is irregular, then its past forms meet its base form', () => {
    for (const [form, base] of [
      ['went', 'go'],
      ['bought', 'buy'],
      ['ran', 'run'],
      ['thought', 'think'],
      ['taught', 'teach'],
    ]) {
      expect(termOf(form as string)).toBe(termOf(base as string));
    }
  });

  it("when a word is possessive or hyphenated, then the owner's name and each part are terms", () => {
    expect(tokenize("Caroline's well-being")).toEqual([termOf('caroline'), 'well', termOf('being')]);
    expect(tokenize('Caroline’s')).toEqual(tokenize("caroline's"));
  });

  it('when a word is a contraction, then it is one term without its apostrophe', () => {
    expect(words("I don't know")).toEqual(['i', "don't", 'know']);
    expect(tokenize("don't")).toEqual(['dont']);
  });

  it('when text is in other scripts or compatibility forms, then letters and digits survive normalized', () => {
    expect(tokenize('Ｃａｆé ＡＢＣ123 Straße 東京')).toEqual(['café', 'abc123', 'straße', '東京']);
  });

  it('when text has no letters or digits, then there are no terms', () => {
    expect(tokenize(" !!! --- ... ''' ")).toEqual([]);
  });

  it('when a token is longer than the index allows, then it is cut to the maximum length', () => {
    const [term] = tokenize('x'.repeat(500));
    expect(term).toHaveLength(MAX_TERM_LENGTH);
  });

  it('for any text, terms are distinct, non-empty, bounded, and a term is its own term', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        const terms = tokenize(text);
        expect(new Set(terms).size).toBe(terms.length);
        for (const t of terms) {
          expect(t.length).toBeGreaterThan(0);
          expect([...t].length).toBeLessThanOrEqual(MAX_TERM_LENGTH);
        }
      }),
    );
  });

  it('for any text, a cue made of its own words matches all of its terms (text and cue agree)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[A-Za-z0-9']{1,12}$/), { minLength: 1, maxLength: 20 }),
        (ws) => {
          const text = ws.join(' ');
          const cue = [...ws]
            .reverse()
            .map((w) => w.toUpperCase())
            .join(', ');
          expect(new Set(tokenize(cue))).toEqual(new Set(tokenize(text)));
        },
      ),
    );
  });
});

describe('tokenizeV1 (the index before stemming)', () => {
  it('when text has case, punctuation and inflections, then it yields distinct lower-case runs, unstemmed', () => {
    expect(tokenizeV1("The cats, the CATS; Caroline's hat!")).toEqual([
      'the',
      'cats',
      'caroline',
      's',
      'hat',
    ]);
  });
});
