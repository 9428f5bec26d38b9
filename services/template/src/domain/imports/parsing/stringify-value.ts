/**
 * The text a cell value contributes to a rendered row. Readers hand over numbers, booleans, dates and,
 * from JSON, nested values; a memory is text, so each gets the spelling a person would expect rather
 * than JavaScript's default (`[object Object]`, `Tue Jan 02 2024 …`).
 */
export function stringifyValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      // NaN and infinities are what a broken cell parses to; they say nothing to a reader.
      if (!Number.isFinite(value)) return '';
      return Object.is(value, -0) ? '0' : String(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString();
      return stringifyJson(value);
    default:
      // functions and symbols never come out of a file
      return '';
  }
}

function stringifyJson(value: object): string {
  try {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? '';
  } catch {
    // a cycle cannot come from a parsed file; fall back rather than fail a row on it
    return String(value);
  }
}
