import type { Readable } from 'node:stream';
import type { ImportFileKind } from './detect-format.js';
import { ImportError } from './import-errors.js';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from './import-limits.js';
import type { ImportRecord } from './import-row.js';
import { readCsvRows } from './read-csv-rows.js';
import { readJsonRows } from './read-json-rows.js';
import { readXlsRows } from './read-xls-rows.js';
import { readXlsxRows } from './read-xlsx-rows.js';
import { refuseDeepValues } from './refuse-deep-values.js';
import { refuseNulValues, spellNul } from './refuse-nul-values.js';

/**
 * The reader for a detected kind, held to the import's limits: every format passes through here,
 * so a row or cell limit means the same for a CSV as for a workbook.
 */
export async function* readImportRecords(
  kind: ImportFileKind,
  input: Readable,
  limits: ImportLimits = DEFAULT_IMPORT_LIMITS,
): AsyncGenerator<ImportRecord> {
  let rows = 0;
  for await (const record of readerFor(kind, input, limits)) {
    rows += 1;
    if (rows > limits.maxRows) {
      throw new ImportError(
        'size_exceeded',
        `The file has more than ${limits.maxRows} rows, the limit for one import; split it into several files`,
        { row: record.row },
      );
    }
    if (record.ok) checkCells(record.values, record.row, limits.maxCellChars);
    yield refuseNulValues(refuseDeepValues(record));
  }
}

function readerFor(kind: ImportFileKind, input: Readable, limits: ImportLimits) {
  switch (kind) {
    case 'csv':
      // a record holds at least one cell; its own cap stops an unclosed quote early
      return readCsvRows(input, { maxRecordChars: Math.max(limits.maxCellChars, 1_000_000) });
    case 'json':
      return readJsonRows(input);
    case 'xlsx':
      return readXlsxRows(input, { maxUncompressedBytes: limits.maxUncompressedBytes });
    case 'xls':
      // one row past the limit is read, so the limit is reported rather than the sheet cut short
      return readXlsRows(input, { maxRows: limits.maxRows + 1 });
  }
}

function checkCells(values: Record<string, unknown>, row: number, maxCellChars: number): void {
  for (const [column, value] of Object.entries(values)) {
    if (typeof value === 'string' && value.length > maxCellChars) {
      throw new ImportError(
        'size_exceeded',
        `Row ${row}, column '${spellNul(column)}' holds ${value.length} characters; one cell may hold at most ${maxCellChars}`,
        { row },
      );
    }
  }
}
