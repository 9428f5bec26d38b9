import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TERM_LENGTH, tokenize } from '../src/domain/tokenize.js';

describe('tokenize', () => {
  it('when text has case, punctuation and repeats, then it yields distinct lower-case terms in order', () => {
    expect(tokenize('The cat, the CAT; the hat!')).toEqual(['the', 'cat', 'hat']);
  });

  it('when text is in other scripts or compatibility forms, then letters and digits survive normalized', () => {
    expect(tokenize('Ｃａｆé ＡＢＣ123 Straße 東京')).toEqual(['café', 'abc123', 'straße', '東京']);
  });

  it('when text has no letters or digits, then there are no terms', () => {
    expect(tokenize(' !!! --- ... ')).toEqual([]);
  });

  it('when a token is longer than the index allows, then it is cut to the maximum length', () => {
    const [term] = tokenize('x'.repeat(500));
    expect(term).toHaveLength(MAX_TERM_LENGTH);
  });

  it('for any text, terms are distinct, non-empty, bounded, and re-tokenizing them changes nothing', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        const terms = tokenize(text);
        expect(new Set(terms).size).toBe(terms.length);
        for (const t of terms) {
          expect(t.length).toBeGreaterThan(0);
          expect([...t].length).toBeLessThanOrEqual(MAX_TERM_LENGTH);
          expect(tokenize(t)).toEqual([t]);
        }
      }),
    );
  });

  it('for any text, a cue made of its own words matches all of its terms (text and cue agree)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[A-Za-z0-9]{1,12}$/), { minLength: 1, maxLength: 20 }),
        (words) => {
          const text = words.join(' ');
          const cue = [...words]
            .reverse()
            .map((w) => w.toUpperCase())
            .join(', ');
          expect(new Set(tokenize(cue))).toEqual(new Set(tokenize(text)));
        },
      ),
    );
  });
});
