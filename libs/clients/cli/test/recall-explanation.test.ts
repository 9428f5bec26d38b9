import type { RelatedResult } from '@text-memory/sdk';
import { describe, expect, it } from 'vitest';
import { explainedRecallLines } from '../src/recall-explanation.js';

const result = (overrides: Partial<RelatedResult>): RelatedResult => ({
  event_id: 'tea',
  memory_id: 'mem-1',
  occurred_at: '2026-11-22T09:00:00.000Z',
  text: 'Alice drinks green tea in the morning',
  score_kind: 'mock_lexical_overlap',
  score: 0.7153,
  matched_terms: 2,
  ...overrides,
});

const term = (word: string, weight: number, matched: boolean, stem = word) => ({
  word,
  term: stem,
  weight,
  matched,
});

describe('explainedRecallLines', () => {
  it('when results are explained, then each shows its terms aligned with weights, ✓/✗ and a differing stem, then its tie-break words', () => {
    const explained = result({
      explanation: {
        terms: [
          term('alice', 0.2847, true),
          term('drink', 0.4306, true),
          term('mornings', 0.2847, false, 'morn'),
        ],
        tie_break_terms: [term('what', 0.5, false), term('the', 0.5, true)],
      },
    });
    const other = result({
      event_id: 'coffee',
      text: 'Bob drinks\ncoffee',
      score: 0.4306,
      matched_terms: 1,
      explanation: {
        terms: [
          term('alice', 0.2847, false),
          term('drink', 0.4306, true),
          term('mornings', 0.2847, false, 'morn'),
        ],
        tie_break_terms: [term('what', 0.5, false), term('the', 0.5, false)],
      },
    });

    expect(explainedRecallLines([explained, other])).toEqual([
      '1. score 0.7153  tea  2026-11-22T09:00:00.000Z',
      '   Alice drinks green tea in the morning',
      '   ✓ alice     0.2847',
      '   ✓ drink     0.4306',
      '   ✗ mornings  0.2847  (stem morn)',
      '   tie-break: ✗ what  ✓ the',
      '',
      '2. score 0.4306  coffee  2026-11-22T09:00:00.000Z',
      '   Bob drinks coffee',
      '   ✗ alice     0.2847',
      '   ✓ drink     0.4306',
      '   ✗ mornings  0.2847  (stem morn)',
      '   tie-break: ✗ what  ✗ the',
      '',
    ]);
  });

  it('when the cue had no function words, then there is no tie-break line; a long text is cut as in the table', () => {
    const lines = explainedRecallLines([
      result({
        text: 'x'.repeat(100),
        score: 1,
        matched_terms: 1,
        explanation: { terms: [term('tea', 1, true)], tie_break_terms: [] },
      }),
    ]);

    expect(lines).toEqual([
      '1. score 1.0000  tea  2026-11-22T09:00:00.000Z',
      `   ${'x'.repeat(79)}…`,
      '   ✓ tea  1.0000',
      '',
    ]);
  });

  it('when a result carries no explanation, then it shows without terms', () => {
    expect(explainedRecallLines([result({})])).toEqual([
      '1. score 0.7153  tea  2026-11-22T09:00:00.000Z',
      '   Alice drinks green tea in the morning',
      '',
    ]);
  });
});
