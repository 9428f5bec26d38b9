import { LIMITS } from '@tm/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GatewayConfigSchema } from '../src/config.js';
import {
  LARGEST_BATCH_TEXT_COST,
  TEXT_CHARS_INCLUDED,
  textCostOf,
  textCostOfAll,
} from '../src/domain/data-plane/write-cost.js';

describe('textCostOf', () => {
  it('when a text is of ordinary length (up to 1,024 characters), then it costs nothing past its request', () => {
    expect([textCostOf('a note'), textCostOf('x'.repeat(TEXT_CHARS_INCLUDED))]).toEqual([0, 0]);
  });

  it('when a text is longer, then it costs each character past the first 1,024', () => {
    expect(textCostOf('x'.repeat(TEXT_CHARS_INCLUDED + 1))).toBe(1);
    expect(textCostOf('x'.repeat(LIMITS.textMaxChars))).toBe(LIMITS.textMaxChars - TEXT_CHARS_INCLUDED);
  });

  it('when texts grow, then their cost never shrinks and never passes their length', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3_000 }), fc.string({ maxLength: 500 }), (text, more) => {
        const cost = textCostOf(text);
        expect(cost).toBeGreaterThanOrEqual(0);
        expect(cost).toBeLessThanOrEqual(text.length);
        expect(textCostOf(text + more)).toBeGreaterThanOrEqual(cost);
      }),
    );
  });
});

describe('textCostOfAll', () => {
  it('when a batch holds long and short items, then its cost is its items’ costs added up', () => {
    const texts = ['short', 'y'.repeat(2_024), 'z'.repeat(LIMITS.textMaxChars)];

    expect(textCostOfAll(texts)).toBe(0 + 1_000 + (LIMITS.textMaxChars - TEXT_CHARS_INCLUDED));
  });

  it('when the batch is the largest allowed (100 items of 32,768 characters), then it costs LARGEST_BATCH_TEXT_COST', () => {
    const texts = Array.from({ length: LIMITS.writeBatchMaxItems }, () => 'w'.repeat(LIMITS.textMaxChars));

    expect(textCostOfAll(texts)).toBe(LARGEST_BATCH_TEXT_COST);
    expect(LARGEST_BATCH_TEXT_COST).toBe(3_174_400);
  });
});

describe('text budget settings', () => {
  const parse = (env: Record<string, string>) => GatewayConfigSchema.safeParse(env);

  it('when unset, then one largest batch of text (3,276,800 characters) per 10 s per tenant', () => {
    expect(parse({}).data).toMatchObject({
      RATE_LIMIT_TEXT_CHARS_PER_TENANT: 3_276_800,
      RATE_LIMIT_TEXT_WINDOW_SECONDS: 10,
    });
  });

  it('when the budget is exactly what the largest batch costs, then it is taken', () => {
    expect(parse({ RATE_LIMIT_TEXT_CHARS_PER_TENANT: String(LARGEST_BATCH_TEXT_COST) }).success).toBe(true);
  });

  it.each([
    ['RATE_LIMIT_TEXT_CHARS_PER_TENANT', String(LARGEST_BATCH_TEXT_COST - 1)],
    ['RATE_LIMIT_TEXT_CHARS_PER_TENANT', '0'],
    ['RATE_LIMIT_TEXT_CHARS_PER_TENANT', 'lots'],
    ['RATE_LIMIT_TEXT_WINDOW_SECONDS', '0'],
    ['RATE_LIMIT_TEXT_WINDOW_SECONDS', '1.5'],
  ])('when %s is %s, then the configuration is refused naming it', (name, value) => {
    const parsed = parse({ [name]: value });

    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toContain(name);
  });
});
