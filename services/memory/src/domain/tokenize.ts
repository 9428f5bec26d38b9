import { stem } from 'porter2';
import lemmatizer from 'wink-lemmatizer';
import { MAX_TERM_LENGTH, words } from './words.js';

/**
 * One word's index term (deterministic-lexical-v2): irregular verb forms to their base form
 * ("went" → "go", "bought" → "buy", WordNet's exception lists through wink-lemmatizer), then the
 * Snowball English (Porter2) stem ("mesmerizes" and "mesmerized" → "mesmer"), which also drops a
 * possessive ("caroline's" → "carolin"); a contraction's apostrophe is dropped ("don't" → "dont").
 * Words outside Latin script pass through both unchanged.
 */
export function termOf(word: string): string {
  const stemmed = stem(lemmatizer.verb(word)).replaceAll("'", '');
  return stemmed.length > MAX_TERM_LENGTH ? [...stemmed].slice(0, MAX_TERM_LENGTH).join('') : stemmed;
}

/**
 * The lexical representation recall ranks on: a text's distinct index terms, in order of first use.
 * Texts and cues go through this same function, so they always agree.
 */
export function tokenize(text: string): string[] {
  const terms = new Set<string>();
  for (const word of words(text)) {
    const term = termOf(word);
    if (term) terms.add(term);
  }
  return [...terms];
}
