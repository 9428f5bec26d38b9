import { MAX_TERM_LENGTH } from './words.js';

/**
 * The index before stemming (deterministic-lexical-v1): distinct, case-folded, Unicode-normalized runs
 * of letters and digits. Kept for namespaces that still rank by their old index while they are
 * re-indexed, and to remove those postings afterwards.
 */
export function tokenizeV1(text: string): string[] {
  const terms = new Set<string>();
  for (const raw of text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)) {
    if (raw) terms.add(raw.length > MAX_TERM_LENGTH ? [...raw].slice(0, MAX_TERM_LENGTH).join('') : raw);
  }
  return [...terms];
}
