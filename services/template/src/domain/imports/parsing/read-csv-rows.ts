import { pipeline, type Readable } from 'node:stream';
import { type CsvError, parse } from 'csv-parse';
import { isBlankRow, readHeader, recordFromCells } from './header-columns.js';
import { asMalformedFile, ImportError } from './import-errors.js';
import type { ImportRecord } from './import-row.js';

export type CsvReadOptions = {
  /** one character; ',' unless the caller knows better (e.g. ';' from a European Excel export) */
  delimiter?: string;
  /**
   * Largest record in characters. An unclosed quote otherwise swallows the rest of the file into one
   * field held in memory; with a cap it fails early as a malformed file.
   */
  maxRecordChars?: number;
};

const DEFAULT_MAX_RECORD_CHARS = 1_000_000;

/**
 * Streams the rows of a UTF-8 CSV file whose first non-blank row names the columns. A leading BOM is
 * dropped (Excel writes one). A row with more or fewer values than the header is yielded as a row
 * error, and blank rows are skipped; both still count in row numbers so they match a spreadsheet's.
 * Quotes inside unquoted fields (`5" screen`) are kept as text, as spreadsheets do.
 */
export async function* readCsvRows(
  input: Readable,
  options: CsvReadOptions = {},
): AsyncGenerator<ImportRecord> {
  const parser = parse({
    bom: true,
    delimiter: options.delimiter ?? ',',
    relax_column_count: true,
    relax_quotes: true,
    max_record_size: options.maxRecordChars ?? DEFAULT_MAX_RECORD_CHARS,
    info: true,
  });
  // pipeline carries an upload's own failure (size limit, timeout) into the parser, and stops the
  // upload when the parser fails or the caller stops iterating.
  pipeline(input, parser, () => {});

  let header: Array<string | null> | undefined;
  let row = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { lines: number };
    }>) {
      row += 1;
      if (isBlankRow(record)) continue;
      if (header === undefined) {
        header = readHeader(record, row);
        continue;
      }
      if (record.length !== header.length) {
        yield {
          ok: false,
          row,
          error: `Row ${row} (line ${info.lines}) has ${record.length} values but the header has ${header.length} columns`,
        };
        continue;
      }
      yield recordFromCells(header, record, row);
    }
  } catch (error) {
    throw csvError(error, row);
  } finally {
    // a caller that stops early releases the upload at once, not when pipeline gets round to it
    parser.destroy();
    input.destroy();
  }
  if (header === undefined) {
    throw new ImportError(
      'malformed_file',
      'The CSV file has no header row; the first row must name the columns',
    );
  }
}

/**
 * csv-parse says where it stopped, which for an unclosed quote is the end of the file; the last
 * row read tells the person roughly where the broken one begins.
 */
function csvError(error: unknown, lastRow: number): ImportError {
  const { lines, code } = error as Partial<CsvError>;
  if (code === 'CSV_MAX_RECORD_SIZE') {
    return new ImportError(
      'malformed_file',
      `A row of the CSV file is longer than the limit for one row (near line ${lines ?? '?'}); is a quote left open?`,
      { cause: error, ...(typeof lines === 'number' ? { line: lines } : {}) },
    );
  }
  const wrapped = asMalformedFile(error, 'The CSV file could not be read');
  if (typeof lines === 'number' && wrapped.line === undefined && wrapped.kind === 'malformed_file') {
    const after = lastRow > 0 ? ` (rows up to row ${lastRow} were read before it)` : '';
    return new ImportError(wrapped.kind, `${wrapped.message}${after}`, { line: lines, cause: error });
  }
  return wrapped;
}
