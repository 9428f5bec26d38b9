import { ImportError } from './import-errors.js';
import type { ImportRecord } from './import-row.js';
import { stringifyValue } from './stringify-value.js';

/**
 * Column names from a header row (CSV, XLSX, XLS), `null` for a column without a name. Names are
 * trimmed because `" city"` in a header is never meant to differ from `city` in a format string.
 * Unnamed columns are allowed (exports often end in an empty header cell) but their values may not be
 * used; duplicate names are refused because a placeholder could not say which one it means.
 */
export function readHeader(cells: readonly unknown[], row = 1): Array<string | null> {
  const columns = cells.map((cell) => {
    const name = stringifyValue(cell).trim();
    return name === '' ? null : name;
  });
  const seen = new Set<string>();
  for (const name of columns) {
    if (name === null) continue;
    if (name.includes('\u0000')) {
      // every row would fail on it: the file, not its rows, is what needs mending
      throw new ImportError(
        'malformed_file',
        'A column name in the header row holds a NUL character (U+0000)',
        {
          row,
        },
      );
    }
    if (seen.has(name)) {
      throw new ImportError(
        'malformed_file',
        `The header row has the column '${name}' twice; column names must be unique`,
        {
          row,
        },
      );
    }
    seen.add(name);
  }
  if (seen.size === 0) {
    throw new ImportError(
      'malformed_file',
      'The header row has no column names; the first row must name the columns',
      {
        row,
      },
    );
  }
  return columns;
}

/**
 * A data row as a record keyed by column name. A non-empty value in a column without a name (or
 * beyond the header) makes the row an error rather than being dropped without a word. Values are
 * set with Object.fromEntries so that a column named `__proto__` is an ordinary key.
 */
export function recordFromCells(
  header: ReadonlyArray<string | null>,
  cells: readonly unknown[],
  row: number,
): ImportRecord {
  const entries: Array<[string, unknown]> = [];
  for (let i = 0; i < Math.max(header.length, cells.length); i += 1) {
    const name = header[i] ?? null;
    const value = cells[i] ?? null;
    if (name !== null) {
      entries.push([name, value]);
    } else if (stringifyValue(value).trim() !== '') {
      return {
        ok: false,
        row,
        error: `Row ${row} has a value in column ${i + 1}, which has no name in the header row`,
      };
    }
  }
  return { ok: true, row, values: Object.fromEntries(entries) };
}

/** True when a row has no value at all; such rows are skipped rather than imported as empty text. */
export function isBlankRow(cells: readonly unknown[]): boolean {
  return cells.every((cell) => stringifyValue(cell).trim() === '');
}
