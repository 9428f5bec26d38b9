import type { Readable } from 'node:stream';
import type { ImportFileKind } from './detect-format.js';
import type { ImportRecord } from './import-row.js';
import { readCsvRows } from './read-csv-rows.js';
import { readJsonRows } from './read-json-rows.js';
import { readXlsRows } from './read-xls-rows.js';
import { readXlsxRows } from './read-xlsx-rows.js';

/** The reader for a detected kind. */
export function readImportRecords(kind: ImportFileKind, input: Readable): AsyncGenerator<ImportRecord> {
  switch (kind) {
    case 'csv':
      return readCsvRows(input);
    case 'json':
      return readJsonRows(input);
    case 'xlsx':
      return readXlsxRows(input);
    case 'xls':
      return readXlsRows(input);
  }
}
