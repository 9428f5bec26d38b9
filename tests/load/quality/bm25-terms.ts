import { stemmer } from 'stemmer';
import { ENGLISH_STOP_WORDS } from './english-stop-words.js';

/**
 * The baseline's analysis of a text or a question: lower-cased runs of letters and digits (so
 * "Caroline's" is "caroline" and "s"), English stop words out, each word Porter-stemmed.
 */
export function analyseText(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word && !ENGLISH_STOP_WORDS.has(word))
    .map((word) => stemmer(word));
}
