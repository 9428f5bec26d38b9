import type { ExplainedTerm, RecallExplanation } from '@tm/contracts';
import type { CueTerm } from './cue-terms.js';

const round = (n: number) => Math.round(n * 10_000) / 10_000;

/** Each term with its share of the list's total weight (4 decimals) and whether the record holds it. */
function explain(
  terms: readonly CueTerm[],
  weights: readonly number[],
  held: readonly boolean[],
): ExplainedTerm[] {
  const total = weights.reduce((a, b) => a + b, 0);
  return terms.map((t, i) => ({
    word: t.word,
    term: t.term,
    weight: total > 0 ? round((weights[i] ?? 0) / total) : 0,
    matched: held[i] === true,
  }));
}

/**
 * Why a record came back: the cue's content terms with their weights, the score being the matched
 * ones' sum, and its function words, which only break ties and count alike.
 */
export function explanation(
  cue: { content: readonly CueTerm[]; function: readonly CueTerm[] },
  weights: readonly number[],
  held: { terms: readonly boolean[]; tieTerms: readonly boolean[] },
): RecallExplanation {
  return {
    terms: explain(cue.content, weights, held.terms),
    tie_break_terms: explain(
      cue.function,
      cue.function.map(() => 1),
      held.tieTerms,
    ),
  };
}
