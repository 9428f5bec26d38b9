/** Longer tokens are cut: an index entry has a size limit, and no real word is this long. */
export const MAX_TERM_LENGTH = 64;

/**
 * The lexical representation recall ranks on: distinct, case-folded, Unicode-normalized runs of
 * letters and digits. Texts and cues go through this same function, so they always agree.
 */
export function tokenize(text: string): string[] {
  const terms = new Set<string>();
  for (const raw of text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)) {
    if (raw) terms.add(raw.length > MAX_TERM_LENGTH ? [...raw].slice(0, MAX_TERM_LENGTH).join('') : raw);
  }
  return [...terms];
}
