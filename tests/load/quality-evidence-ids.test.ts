// The quality bench's cleaning of LoCoMo's evidence ids (quality/evidence-ids.ts).
import { describe, expect, it } from 'vitest';
import { noRepairs, normaliseEvidence } from './quality/evidence-ids.js';

const turns = new Set(['D1:3', 'D1:5', 'D8:6', 'D9:17', 'D11:26', 'D4:4']);

describe('normaliseEvidence', () => {
  it('when ids are well formed, then they are kept as they are, in order, and nothing is counted', () => {
    const repairs = noRepairs();

    expect(normaliseEvidence(['D8:6', 'D1:3'], turns, repairs)).toEqual(['D8:6', 'D1:3']);
    expect(repairs).toEqual({ split: 0, repaired: 0, unknown: 0 });
  });

  it('when one string holds several ids, separated by spaces or semicolons, then it is split', () => {
    const repairs = noRepairs();

    expect(normaliseEvidence(['D1:3 D1:5', 'D8:6; D9:17'], turns, repairs)).toEqual([
      'D1:3',
      'D1:5',
      'D8:6',
      'D9:17',
    ]);
    expect(repairs).toEqual({ split: 2, repaired: 0, unknown: 0 });
  });

  it('when an id has a stray colon, then "D:11:26" becomes "D11:26"', () => {
    const repairs = noRepairs();

    expect(normaliseEvidence(['D:11:26'], turns, repairs)).toEqual(['D11:26']);
    expect(repairs).toEqual({ split: 0, repaired: 1, unknown: 0 });
  });

  it('when an id names no turn, then it is dropped and counted; when an id repeats, then it is kept once', () => {
    const repairs = noRepairs();

    expect(normaliseEvidence(['D4:36', 'D4:4', 'D4:4 D1:3'], turns, repairs)).toEqual(['D4:4', 'D1:3']);
    expect(repairs).toEqual({ split: 1, repaired: 0, unknown: 1 });
    expect(normaliseEvidence(['D99:1'], turns)).toEqual([]);
  });
});
