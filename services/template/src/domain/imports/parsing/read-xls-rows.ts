import type { Readable } from 'node:stream';
import * as XLSX from '@e965/xlsx';
import * as codepages from '@e965/xlsx/dist/cpexcel.full.mjs';
import { isBlankRow, readHeader, recordFromCells } from './header-columns.js';
import { asMalformedFile, ImportError } from './import-errors.js';
import type { ImportRecord } from './import-row.js';
import { readBounded } from './read-bounded.js';
import { dateToIsoText, excelSerialToDate, isDateFormat } from './spreadsheet-cell.js';

// Workbooks older than Excel 97 store text in a Windows code page rather than UTF-16.
XLSX.set_cptable(codepages);

export type XlsReadOptions = {
  /**
   * Largest workbook accepted, in bytes. An .xls file cannot be streamed (see below), so this reader
   * bounds its own buffer whatever the caller's size limit is.
   */
  maxBytes?: number;
  /** Stop after this many data rows; a sheet holds at most 65,536 rows anyway. */
  maxRows?: number;
};

const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;
const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/**
 * Rows of the first worksheet of an old binary Excel (.xls, BIFF) workbook, with SheetJS 0.20.3
 * (published on npm as @e965/xlsx; the `xlsx` package on npm stops at 0.18.5, which has known
 * prototype-pollution and ReDoS flaws when reading crafted files, fixed in 0.19.3 and 0.20.2).
 *
 * Unlike the other readers this one buffers the file: an .xls is an OLE2 compound file, a small file
 * system whose allocation tables and directory may sit anywhere, so it needs random access. The
 * buffer is bounded by `maxBytes`. Only OLE2 content reaches SheetJS, so its many other input
 * formats (HTML, SYLK, …) are never parsed from an upload. Cells become plain values as in the XLSX
 * reader: dates are read from their serial numbers and formats, so the machine's time zone plays no part.
 */
export async function* readXlsRows(
  input: Readable,
  options: XlsReadOptions = {},
): AsyncGenerator<ImportRecord> {
  const buffer = await readBounded(input, options.maxBytes ?? DEFAULT_MAX_BYTES, 'The .xls workbook');
  if (!buffer.subarray(0, OLE2.length).equals(OLE2)) {
    throw new ImportError(
      'malformed_file',
      'The file is not an .xls workbook (no OLE2 compound file header)',
    );
  }
  let workbook: XLSX.WorkBook;
  try {
    workbook = XLSX.read(buffer, {
      type: 'buffer',
      dense: true,
      sheets: 0,
      cellDates: false,
      cellNF: true,
      cellFormula: false,
      cellHTML: false,
      cellStyles: false,
      bookVBA: false,
      WTF: false,
      ...(options.maxRows === undefined ? {} : { sheetRows: options.maxRows + 1 }),
    });
  } catch (error) {
    throw asMalformedFile(error, 'The .xls workbook could not be read');
  }
  const name = workbook.SheetNames[0];
  const sheet = name === undefined ? undefined : workbook.Sheets[name];
  if (sheet === undefined || sheet['!ref'] === undefined) {
    throw new ImportError(
      'malformed_file',
      'The first worksheet is empty; its first row must name the columns',
    );
  }
  const date1904 = workbook.Workbook?.WBProps?.date1904 === true;
  const range = XLSX.utils.decode_range(sheet['!ref']);
  const data = (sheet['!data'] ?? []) as Array<Array<XLSX.CellObject | undefined> | undefined>;

  let header: Array<string | null> | undefined;
  for (let r = range.s.r; r <= range.e.r; r += 1) {
    const cells: unknown[] = [];
    for (let c = 0; c <= range.e.c; c += 1) cells.push(plainXlsCell(data[r]?.[c], date1904));
    if (isBlankRow(cells)) continue;
    if (header === undefined) {
      header = readHeader(cells, r + 1);
      continue;
    }
    yield recordFromCells(header, cells, r + 1);
  }
  if (header === undefined) {
    throw new ImportError(
      'malformed_file',
      'The first worksheet is empty; its first row must name the columns',
    );
  }
}

function plainXlsCell(
  cell: XLSX.CellObject | undefined,
  date1904: boolean,
): string | number | boolean | null {
  if (cell === undefined) return null;
  switch (cell.t) {
    case 's':
      return typeof cell.v === 'string' ? cell.v : null;
    case 'b':
      return cell.v === true;
    case 'n': {
      if (typeof cell.v !== 'number' || !Number.isFinite(cell.v)) return null;
      const format = typeof cell.z === 'string' ? cell.z : undefined;
      return isDateFormat(format) ? dateToIsoText(excelSerialToDate(cell.v, date1904)) : cell.v;
    }
    case 'd':
      return cell.v instanceof Date ? dateToIsoText(cell.v) : null;
    default:
      // 'e' (#N/A and other error values) and 'z' (blank) carry nothing to remember
      return null;
  }
}
