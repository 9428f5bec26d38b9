import type { RecallExplanation } from '@tm/contracts';
import { expect } from 'vitest';

interface ExplainedResult {
  score: number;
  matched_terms: number;
  explanation?: RecallExplanation;
}

const sum = (weights: number[]) => weights.reduce((a, b) => a + b, 0);

/**
 * What every explained result must say of itself, whatever the cue: its matched terms' weights add up
 * to its score (each weight is rounded to 4 decimals, so within 0.0002), it holds as many terms as
 * `matched_terms` says, and each list's weights share 1 between them. Returns the explanation.
 */
export function expectSelfConsistent(result: ExplainedResult): RecallExplanation {
  const { explanation } = result;
  expect(explanation, 'the result has no explanation').toBeDefined();
  const { terms, tie_break_terms } = explanation as RecallExplanation;
  const matched = terms.filter((t) => t.matched);
  expect(Math.abs(sum(matched.map((t) => t.weight)) - result.score)).toBeLessThanOrEqual(0.0002);
  expect(matched).toHaveLength(result.matched_terms);
  for (const list of [terms, tie_break_terms].filter((l) => l.length > 0))
    expect(sum(list.map((t) => t.weight))).toBeCloseTo(1, 3);
  return explanation as RecallExplanation;
}

/** An explanation's words in its order, each with ✓ or ✗: what a test compares with the cue. */
export const markedWords = (terms: RecallExplanation['terms']) =>
  terms.map((t) => `${t.word}${t.matched ? ' ✓' : ' ✗'}`);

/** Each word's weight, by word. */
export const weightsOf = (terms: RecallExplanation['terms']): Record<string, number> =>
  Object.fromEntries(terms.map((t) => [t.word, t.weight]));
