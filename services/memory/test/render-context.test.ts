import { describe, expect, it } from 'vitest';
import { renderContext } from '../src/domain/render-context.js';

const item = (text: string) => ({ occurred_at: '2026-11-22T09:00:00.000Z', text });

describe('renderContext', () => {
  it('when items are selected, then each becomes one numbered line in rank order', () => {
    expect(renderContext([item('first'), item('second')])).toBe(
      '[1] (2026-11-22T09:00:00.000Z) first\n[2] (2026-11-22T09:00:00.000Z) second',
    );
  });

  it('when nothing is selected, then there is no context', () => {
    expect(renderContext([])).toBeUndefined();
  });

  it('when the budget runs out, then whole lines are dropped, never half of one after the first', () => {
    const out = renderContext([item('a'.repeat(30)), item('b'.repeat(30))], 70);
    expect(out).toBe(`[1] (2026-11-22T09:00:00.000Z) ${'a'.repeat(30)}`);
  });

  it('when a single item exceeds the budget, then it is cut to the budget', () => {
    expect(renderContext([item('z'.repeat(500))], 100)).toHaveLength(100);
  });
});
