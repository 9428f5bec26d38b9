import { z } from 'zod';

const DECIMAL = /^-?\d+$/;

/**
 * A whole number read from a query string. `z.coerce.number()` alone reads `?offset=` and `?offset=%20`
 * as 0, `0x10` as 16 and `1e3` as 1000 (JavaScript's Number), so a value the document calls no integer
 * passed as one; the OpenAPI fuzz test found `?offset=` accepted. Here only decimal digits are a number;
 * anything else fails as "must be a whole number", before the bounds.
 */
export function queryInteger(name: string, bounds: { min: number; max: number; default: number }) {
  return z.preprocess(
    readDecimal,
    // The default inside the pipe: outside it, the document would lose it.
    wholeNumber(name, bounds).default(bounds.default),
  );
}

/** The same, for a parameter without a default: left out, it reads as undefined. */
export function optionalQueryInteger(name: string, bounds: { min: number; max: number }) {
  return z.preprocess(readDecimal, wholeNumber(name, bounds)).optional();
}

const readDecimal = (value: unknown) =>
  typeof value === 'string' && !DECIMAL.test(value) ? Number.NaN : value;

function wholeNumber(name: string, bounds: { min: number; max: number }) {
  const message = `${name} must be a whole number`;
  return z.coerce
    .number({ message })
    .int(message)
    .min(bounds.min, `${name} must be at least ${bounds.min}`)
    .max(bounds.max, `${name} must be at most ${bounds.max}`);
}
