import { PassThrough, type Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { isBlankRow, readHeader, recordFromCells } from './header-columns.js';
import { asMalformedFile, ImportError } from './import-errors.js';
import type { ImportRecord } from './import-row.js';
import { readBounded } from './read-bounded.js';
import { repackXlsxForStreaming } from './repack-xlsx-for-streaming.js';
import { dateToIsoText, excelSerialToDate, isDateFormat } from './spreadsheet-cell.js';

export type XlsxReadOptions = {
  /** Largest workbook accepted, in bytes: the zip is held whole, its directory being at its end. */
  maxBytes?: number;
  /** What the parts read may expand to when unzipped (see repack-xlsx-for-streaming.ts). */
  maxUncompressedBytes?: number;
};

const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;
const DEFAULT_MAX_UNCOMPRESSED_BYTES = 128 * 1024 * 1024;

/**
 * Streams the rows of the first worksheet (the first tab) of an XLSX workbook with exceljs's
 * streaming reader, so a large sheet is read row by row. The zip is first repacked in the order that
 * reader needs, whatever order its writer chose, and bounded in what it expands to. The first
 * non-blank row names the columns. Cells become plain values: rich text its text, a formula its
 * cached result, a date ISO text, an error cell (#N/A) nothing.
 *
 * exceljs pipes its input into its unzipper itself, and a failure of that input does not reach it:
 * it would wait for more bytes forever. So every step of the iteration races the input's failure.
 */
export async function* readXlsxRows(
  input: Readable,
  options: XlsxReadOptions = {},
): AsyncGenerator<ImportRecord> {
  const zipBytes = await readBounded(input, options.maxBytes ?? DEFAULT_MAX_BYTES, 'The XLSX workbook');
  const repacked = await repackXlsxForStreaming(zipBytes, {
    maxUncompressedBytes: options.maxUncompressedBytes ?? DEFAULT_MAX_UNCOMPRESSED_BYTES,
  });
  const feed = new PassThrough();
  let rejectUpload: (error: unknown) => void = () => {};
  const uploadFailed = new Promise<never>((_, reject) => {
    rejectUpload = reject;
  });
  uploadFailed.catch(() => {}); // observed through the races below
  repacked.once('error', (error) => rejectUpload(error));
  repacked.pipe(feed);

  const workbook = new ExcelJS.stream.xlsx.WorkbookReader(feed, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    // styles tell date cells from numbers
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  const next = <T>(iterator: AsyncIterator<T>) => Promise.race([iterator.next(), uploadFailed]);

  const worksheets = workbook[Symbol.asyncIterator]();
  let header: Array<string | null> | undefined;
  let count = 0;
  try {
    const first = await next(worksheets);
    if (first.done)
      throw new ImportError('malformed_file', 'The XLSX file has no worksheet; is it an Excel workbook?');
    // only the first worksheet is imported
    const rows = first.value[Symbol.asyncIterator]();
    for (let step = await next(rows); !step.done; step = await next(rows)) {
      const row = step.value;
      count += 1;
      const rowNumber = Number.isSafeInteger(row.number) ? row.number : count;
      const cells = cellsOf(row, date1904Of(workbook));
      if (isBlankRow(cells)) continue;
      if (header === undefined) {
        header = readHeader(cells, rowNumber);
        continue;
      }
      yield recordFromCells(header, cells, rowNumber);
    }
  } catch (error) {
    throw asMalformedFile(explainZipFailure(error), 'The XLSX workbook could not be read');
  } finally {
    // also settles exceljs's pending reads, so nothing is left waiting on the upload
    repacked.unpipe(feed);
    feed.destroy();
    repacked.destroy();
  }
  if (header === undefined) {
    throw new ImportError(
      'malformed_file',
      'The first worksheet is empty; its first row must name the columns',
    );
  }
}

/** unzipper's own words ('FILE_ENDED', 'invalid signature: 0x…') mean little to the person who uploaded. */
function explainZipFailure(error: unknown): unknown {
  const message = error instanceof Error ? error.message : '';
  if (message === 'FILE_ENDED' || /invalid signature/i.test(message)) {
    return new ImportError(
      'malformed_file',
      'The XLSX file is not a complete zip archive: it is truncated or corrupted',
      {
        cause: error,
      },
    );
  }
  return error;
}

/** A row's cells from column A on; exceljs's `values` is 1-based and sparse. */
function cellsOf(row: ExcelJS.Row, date1904: boolean): unknown[] {
  const values = row.values as unknown[];
  const cells: unknown[] = [];
  for (let column = 1; column < values.length; column += 1) {
    const value = values[column];
    const numFmt = value === undefined || value === null ? undefined : row.getCell(column).numFmt;
    cells.push(plainCellValue(value, numFmt, date1904));
  }
  return cells;
}

type ExcelValue =
  | { richText: Array<{ text: string }> }
  | { formula?: string; sharedFormula?: string; result?: unknown }
  | { text: string; hyperlink: string }
  | { error: string };

export function plainCellValue(
  value: unknown,
  numFmt?: string,
  date1904 = false,
): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (value instanceof Date) return dateToIsoText(value);
  if (typeof value !== 'object') return null;
  const cell = value as ExcelValue;
  if ('richText' in cell && Array.isArray(cell.richText))
    return cell.richText.map((run) => run.text ?? '').join('');
  if ('formula' in cell || 'sharedFormula' in cell) {
    const result = 'result' in cell ? cell.result : undefined;
    // a formula's cached result is stored as a bare number even when the cell shows a date
    if (typeof result === 'number' && isDateFormat(numFmt))
      return dateToIsoText(excelSerialToDate(result, date1904));
    // an error result ({ error: '#DIV/0!' }) says nothing worth remembering
    return plainCellValue(result, numFmt, date1904);
  }
  if ('text' in cell && typeof cell.text === 'string') return cell.text;
  return null;
}

function date1904Of(workbook: unknown): boolean {
  const properties = (workbook as { properties?: { date1904?: boolean } }).properties;
  return properties?.date1904 === true;
}
