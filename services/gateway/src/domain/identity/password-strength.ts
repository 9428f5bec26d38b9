import { AppError, ErrorCode } from '@tm/contracts';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as english from '@zxcvbn-ts/language-en';

/**
 * zxcvbn's score 3 and up: at least 10^8 guesses by its estimate, so no common password, dictionary
 * word, keyboard run, repetition, sequence or piece of the user's own details on its own (NIST SP
 * 800-63B 5.1.1.2 asks for such a blocklist; no composition rules).
 */
const MIN_SCORE = 3;

/** Words of this service that a password should not lean on, beside the user's own details. */
const SERVICE_WORDS = ['text-memory', 'textmemory'];

let estimator: ZxcvbnFactory | undefined;

/**
 * The estimator, built on first use (its dictionaries take ~13 MB and ~0.2 s to rank). The check
 * runs on the event loop, so its cost is bounded: only the first 64 characters are scored (a longer
 * password whose first 64 are strong is strong) and at most 8 l33t substitutions are tried. Measured
 * here on a loaded 2-core machine, the worst inputs found (256 characters of l33t symbols) took
 * 1.7-4.4 s with the defaults (256 characters, 100 substitutions) and at most 90 ms with these.
 */
function zxcvbn(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...english.dictionary },
    graphs: common.adjacencyGraphs,
    translations: english.translations,
    maxLength: 64,
    l33tMaxSubstitutions: 8,
  });
  return estimator;
}

/** An email, its local part and domain, and their words: what a guesser who knows the user tries. */
function contextWords(context: { email?: string | null; tenantName?: string }): string[] {
  const words = new Set<string>(SERVICE_WORDS);
  for (const value of [context.email, context.tenantName]) {
    if (!value) continue;
    const lower = value.toLowerCase();
    words.add(lower);
    for (const part of lower.split('@')) {
      words.add(part);
      words.add(part.replace(/[^\p{L}\p{N}]+/gu, '')); // dana.miller → danamiller
    }
    for (const word of lower.split(/[^\p{L}\p{N}]+/u)) if (word.length >= 3) words.add(word);
  }
  return [...words];
}

/** "This is a commonly used password." → "this is a commonly used password" */
const asClause = (sentence: string) =>
  sentence.charAt(0).toLowerCase() + sentence.slice(1).replace(/\.$/, '');

/**
 * Refuse a password that is common or trivial, or built from the user's own details (400 naming
 * `field`, saying why, never echoing the password). Every place a password is set calls this.
 */
export function requireStrongPassword(
  password: string,
  where: { field: string; what: string },
  context: { email?: string | null; tenantName?: string },
): void {
  const result = zxcvbn().check(password, contextWords(context));
  if (result.score >= MIN_SCORE) return;
  const why = result.feedback.warning ? ` (${asClause(result.feedback.warning)})` : '';
  const message = `is too easy to guess${why}; use a longer phrase of uncommon words`;
  throw new AppError(ErrorCode.ValidationFailed, `Invalid ${where.what}: ${where.field} ${message}`, {
    fields: [{ path: where.field, message }],
  });
}
