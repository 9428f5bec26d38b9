import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ImportRecord } from '../src/domain/imports/parsing/import-row.js';
import { readImportRecords } from '../src/domain/imports/parsing/read-import-records.js';
import { readXlsxRows } from '../src/domain/imports/parsing/read-xlsx-rows.js';
import {
  exceljsWorkbook,
  rezip,
  sheetjsWorkbook,
  sheetsFirst,
  workbookWithHugeSharedString,
} from './support/xlsx-test-files.js';

async function collect(rows: AsyncIterable<ImportRecord>): Promise<ImportRecord[]> {
  const out: ImportRecord[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

const ROWS = [
  ['name', 'score'],
  ['Ada', 3],
  ['Grace', 5],
];
const EXPECTED = [
  { ok: true, row: 2, values: { name: 'Ada', score: 3 } },
  { ok: true, row: 3, values: { name: 'Grace', score: 5 } },
];

describe('readXlsxRows, whatever the zip entry order', () => {
  it.each([
    ['exceljs (Excel’s order)', () => exceljsWorkbook(ROWS)],
    ['SheetJS (the sheet before the workbook, no shared strings)', async () => sheetjsWorkbook(ROWS)],
    ['exceljs re-zipped with the sheets first', async () => rezip(await exceljsWorkbook(ROWS), sheetsFirst)],
    ['SheetJS re-zipped with the sheets first', async () => rezip(sheetjsWorkbook(ROWS), sheetsFirst)],
    ['exceljs re-zipped in reverse', async () => rezip(await exceljsWorkbook(ROWS), (n) => [...n].reverse())],
  ])('when the workbook was written by %s, then the first tab’s rows come out', async (_writer, make) => {
    const file = await make();

    const rows = await collect(readXlsxRows(Readable.from([file])));

    expect(rows).toEqual(EXPECTED);
  });
});

describe('readImportRecords limits on an XLSX upload', () => {
  it('when the parts expand past the unzipped-bytes limit, then size_exceeded before anything is inflated', async () => {
    const bomb = await workbookWithHugeSharedString(64 * 1024 * 1024);
    const limits = { maxUncompressedBytes: 8 * 1024 * 1024, maxCellChars: 1_000_000, maxRows: 100 };

    const failure = collect(readImportRecords('xlsx', Readable.from([bomb]), limits));

    expect(bomb.length).toBeLessThan(1024 * 1024);
    await expect(failure).rejects.toMatchObject({
      kind: 'size_exceeded',
      message: expect.stringContaining('expands to more than 8388608 bytes'),
    });
  });

  it('when one cell is longer than the cell limit, then size_exceeded naming its row and column', async () => {
    const file = await workbookWithHugeSharedString(2_000);
    const limits = { maxUncompressedBytes: 8 * 1024 * 1024, maxCellChars: 1_000, maxRows: 100 };

    const failure = collect(readImportRecords('xlsx', Readable.from([file]), limits));

    await expect(failure).rejects.toMatchObject({
      kind: 'size_exceeded',
      row: 2,
      message: "Row 2, column 'text' holds 2000 characters; one cell may hold at most 1000",
    });
  });

  it('when the zip is cut short, then a malformed file in our words, not the zip library’s', async () => {
    const file = (await exceljsWorkbook(ROWS)).subarray(0, 2_000);

    const failure = collect(readXlsxRows(Readable.from([file])));

    await expect(failure).rejects.toMatchObject({
      kind: 'malformed_file',
      message: 'The XLSX file is not a complete zip archive: it is truncated or corrupted',
    });
  });
});
