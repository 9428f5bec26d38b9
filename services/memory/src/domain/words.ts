/** Longer tokens are cut: an index entry has a size limit, and no real word is this long. */
export const MAX_TERM_LENGTH = 64;

const APOSTROPHES = /[\u2018\u2019\u02bc`]/g;

/**
 * A text's words in order: NFKC-normalized, lower-cased runs of letters, digits and inner
 * apostrophes ("caroline's", "don't"), so a possessive or a contraction stays one word. Hyphens,
 * slashes and every other mark separate words ("well-being" is "well" and "being").
 */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const raw of text
    .normalize('NFKC')
    .toLowerCase()
    .replace(APOSTROPHES, "'")
    .split(/[^\p{L}\p{N}']+/u)) {
    const word = raw.replace(/^'+|'+$/g, '');
    if (word) out.push(word);
  }
  return out;
}
