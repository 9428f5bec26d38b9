import { Readable } from 'node:stream';
import * as XLSX from '@e965/xlsx';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../src/domain/imports/parsing/detect-format.js';
import type { ImportRecord } from '../src/domain/imports/parsing/import-row.js';
import { readXlsRows } from '../src/domain/imports/parsing/read-xls-rows.js';

async function collect(rows: AsyncIterable<ImportRecord>): Promise<ImportRecord[]> {
  const out: ImportRecord[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

const streamOf = (bytes: Buffer, chunkSize = 8192) => {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
  return Readable.from(chunks);
};

/** A BIFF8 workbook as Excel 97–2003 writes it; `z` gives a cell a number format, as a date column has. */
function xlsOf(rows: unknown[][], formats: Record<string, string> = {}, extraSheet = false): Buffer {
  const sheet = XLSX.utils.aoa_to_sheet(rows);
  for (const [address, format] of Object.entries(formats)) {
    const cell = sheet[address] as XLSX.CellObject;
    cell.z = format;
  }
  const workbook = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(workbook, sheet, 'First');
  if (extraSheet) XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet([['x'], [1]]), 'Second');
  return XLSX.write(workbook, { bookType: 'biff8', type: 'buffer' }) as Buffer;
}

describe('readXlsRows', () => {
  it('when the first sheet has a header and a few thousand rows, then every row comes out keyed by column', async () => {
    const data: unknown[][] = [['id', 'name', 'score']];
    for (let i = 1; i <= 3000; i += 1) data.push([i, `Person ${i} Åsa`, i / 4]);
    const file = xlsOf(data, {}, true);

    const rows = await collect(readXlsRows(streamOf(file)));

    expect(detectFormat('people.xls', file)).toBe('xls');
    expect(rows).toHaveLength(3000);
    expect(rows[0]).toEqual({ ok: true, row: 2, values: { id: 1, name: 'Person 1 Åsa', score: 0.25 } });
    expect(rows[2999]).toEqual({
      ok: true,
      row: 3001,
      values: { id: 3000, name: 'Person 3000 Åsa', score: 750 },
    });
  });

  it('when cells hold dates, booleans and blanks, then they become plain values and blank rows are skipped', async () => {
    // 45352 is 2024-03-01 and 45352.5 its noon, in Excel's 1900 date system
    const file = xlsOf(
      [
        ['day', 'moment', 'flag', 'note'],
        [45352, 45352.5, true, null],
        [],
        [null, null, false, 'x'],
        ['a', 'b', 'c', 'd', 'beyond the header'],
      ],
      { A2: 'yyyy-mm-dd', B2: 'yyyy-mm-dd hh:mm' },
    );

    const rows = await collect(readXlsRows(streamOf(file)));

    expect(rows).toEqual([
      {
        ok: true,
        row: 2,
        values: { day: '2024-03-01', moment: '2024-03-01T12:00:00.000Z', flag: true, note: null },
      },
      { ok: true, row: 4, values: { day: null, moment: null, flag: false, note: 'x' } },
      { ok: false, row: 5, error: 'Row 5 has a value in column 5, which has no name in the header row' },
    ]);
  });

  it('when maxRows is given, then no more rows are read', async () => {
    const file = xlsOf([['n'], [1], [2], [3], [4]]);

    const rows = await collect(readXlsRows(streamOf(file), { maxRows: 2 }));

    expect(rows.map((r) => r.ok && r.values.n)).toEqual([1, 2]);
  });

  it.each([
    ['truncated', () => xlsOf([['a'], [1]]).subarray(0, 700)],
    [
      'an OLE2 header followed by garbage',
      () => Buffer.concat([xlsOf([['a']]).subarray(0, 8), Buffer.alloc(4096, 7)]),
    ],
    ['not OLE2 at all (an HTML table)', () => Buffer.from('<table><tr><td>a</td></tr></table>')],
  ])('when the file is %s, then it is malformed', async (_what, make) => {
    await expect(collect(readXlsRows(streamOf(make())))).rejects.toMatchObject({ kind: 'malformed_file' });
  });

  it('when the workbook is larger than maxBytes, then it is refused as size_exceeded', async () => {
    const data: unknown[][] = [['a']];
    for (let i = 0; i < 2000; i += 1) data.push([`row ${i}`]);

    await expect(
      collect(readXlsRows(streamOf(xlsOf(data), 1024), { maxBytes: 10_000 })),
    ).rejects.toMatchObject({
      kind: 'size_exceeded',
    });
  });
});
