import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventsQuery, fieldIssues, TemplateListQuery, UsageQuery } from '../src/index.js';

const offsetOf = (raw: string) => TemplateListQuery.safeParse({ offset: raw });

describe('whole numbers in a query string', () => {
  it.each(['', ' ', '%20', '0x10', '1e3', '1.0', '+1', '٣'])(
    'when offset is %j, then it is refused as not a whole number (JavaScript Number would read it as one)',
    (raw) => {
      const result = offsetOf(raw);

      expect(result.success).toBe(false);
      expect(result.error && fieldIssues(result.error)).toEqual([
        { path: 'offset', message: 'offset must be a whole number' },
      ]);
    },
  );

  it('when a value is decimal digits within the bounds, then it is that number; out of bounds, refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: -10, max: 20_000_000 }), (n) => {
        const result = EventsQuery.safeParse({ offset: String(n) });
        expect(result.success).toBe(n >= 0 && n <= 10_000_000);
        if (result.success) expect(result.data.offset).toBe(n);
      }),
    );
  });

  it('when the value is left out, then the default holds; sent twice, it is refused', () => {
    expect(UsageQuery.parse({})).toEqual({ window_minutes: 60 });
    expect(UsageQuery.safeParse({ window_minutes: ['5', '5'] }).success).toBe(false);
  });
});
