/**
 * What every row reader yields. A reader yields a record per data row, and an `ok: false` record for a
 * row it cannot use (wrong number of values, not an object), so the caller can process the other rows
 * and report the failures; a file it cannot read at all makes the iteration throw an ImportError.
 *
 * `row` is the row number a person would look for in the file:
 * - CSV, XLSX, XLS: the spreadsheet row, the header being row 1 (so the first data row is row 2);
 * - a JSON array: the 1-based position of the element in the array;
 * - NDJSON: the line number.
 */
export type ImportRow = { ok: true; row: number; values: Record<string, unknown> };
export type ImportRowError = { ok: false; row: number; error: string };
export type ImportRecord = ImportRow | ImportRowError;
