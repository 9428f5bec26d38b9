import { z } from 'zod';

const DECIMAL = /^-?\d+$/;

/**
 * A whole number read from a query string. `z.coerce.number()` alone reads `?offset=` and `?offset=%20`
 * as 0, `0x10` as 16 and `1e3` as 1000 (JavaScript's Number), so a value the document calls no integer
 * passed as one; the OpenAPI fuzz test found `?offset=` accepted. Here only decimal digits are a number;
 * anything else fails as "must be a whole number", before the bounds.
 */
export function queryInteger(name: string, bounds: { min: number; max: number; default: number }) {
  const wholeNumber = `${name} must be a whole number`;
  return z.preprocess(
    (value) => (typeof value === 'string' && !DECIMAL.test(value) ? Number.NaN : value),
    // The default inside the pipe: outside it, the document would lose it.
    z.coerce
      .number({ message: wholeNumber })
      .int(wholeNumber)
      .min(bounds.min, `${name} must be at least ${bounds.min}`)
      .max(bounds.max, `${name} must be at most ${bounds.max}`)
      .default(bounds.default),
  );
}
