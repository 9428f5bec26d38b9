import type { ExplainedTerm, RelatedResult } from '@text-memory/sdk';
import { cell } from './output.js';

const mark = (term: ExplainedTerm) => (term.matched ? '✓' : '✗');

/**
 * An explained recall for people: each result's score, event id and time, its text, then the cue's
 * terms one a line, ✓ when the result holds it, ✗ when not, with their weights (the ✓ ones add up to the
 * score, hence 4 decimals here where the table shows 3) and the stem matched on when it is not the word;
 * then the tie-break words, which do not score. A result without an explanation shows no terms.
 */
export function explainedRecallLines(related: readonly RelatedResult[]): string[] {
  return related.flatMap((result, i) => [
    `${i + 1}. score ${result.score.toFixed(4)}  ${result.event_id}  ${result.occurred_at}`,
    `   ${cell(result.text, 80)}`,
    ...(result.explanation ? explanationLines(result.explanation) : []),
    '',
  ]);
}

function explanationLines({ terms, tie_break_terms }: NonNullable<RelatedResult['explanation']>): string[] {
  const width = Math.max(0, ...terms.map((term) => term.word.length));
  return [
    ...terms.map((term) => {
      const stem = term.term === term.word ? '' : `  (stem ${term.term})`;
      return `   ${mark(term)} ${term.word.padEnd(width)}  ${term.weight.toFixed(4)}${stem}`;
    }),
    ...(tie_break_terms.length > 0
      ? [`   tie-break: ${tie_break_terms.map((term) => `${mark(term)} ${term.word}`).join('  ')}`]
      : []),
  ];
}
