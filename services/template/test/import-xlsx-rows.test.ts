import { pipeline, Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../src/domain/imports/parsing/detect-format.js';
import type { ImportRecord } from '../src/domain/imports/parsing/import-row.js';
import { readXlsxRows } from '../src/domain/imports/parsing/read-xlsx-rows.js';
import { SizeLimit } from '../src/domain/imports/parsing/size-limit.js';

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

async function workbookOf(fill: (workbook: ExcelJS.Workbook) => void): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  fill(workbook);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

describe('readXlsxRows', () => {
  it('when the first sheet has a header and a few thousand rows, then every row comes out keyed by column', async () => {
    const file = await workbookOf((workbook) => {
      const sheet = workbook.addWorksheet('People');
      sheet.addRow(['id', 'name', 'score']);
      for (let i = 1; i <= 3000; i += 1) sheet.addRow([i, `Person ${i}`, i / 4]);
      workbook.addWorksheet('Other').addRow(['not', 'imported']);
    });

    const rows = await collect(readXlsxRows(streamOf(file)));

    expect(detectFormat('people.xlsx', file)).toBe('xlsx');
    expect(rows).toHaveLength(3000);
    expect(rows[0]).toEqual({ ok: true, row: 2, values: { id: 1, name: 'Person 1', score: 0.25 } });
    expect(rows[2999]).toEqual({
      ok: true,
      row: 3001,
      values: { id: 3000, name: 'Person 3000', score: 750 },
    });
  });

  it('when cells hold rich text, dates, formulas, booleans, links and errors, then they become plain values', async () => {
    const file = await workbookOf((workbook) => {
      const sheet = workbook.addWorksheet('Types');
      sheet.addRow([' text ', 'rich', 'day', 'moment', 'sum', 'due', 'flag', 'link', 'oops', 'empty']);
      const row = sheet.addRow([
        'plain',
        { richText: [{ text: 'bold ', font: { bold: true } }, { text: 'and plain' }] },
        new Date(Date.UTC(2024, 2, 1)),
        new Date(Date.UTC(2024, 2, 1, 13, 45, 30)),
        { formula: 'SUM(1,2)', result: 3 },
        { formula: 'DATE(2024,3,2)', result: 45353 },
        true,
        { text: 'the site', hyperlink: 'https://example.org' },
        { error: '#N/A' },
        null,
      ]);
      row.getCell(6).numFmt = 'yyyy-mm-dd';
    });

    const rows = await collect(readXlsxRows(streamOf(file)));

    expect(rows).toEqual([
      {
        ok: true,
        row: 2,
        values: {
          text: 'plain',
          rich: 'bold and plain',
          day: '2024-03-01',
          moment: '2024-03-01T13:45:30.000Z',
          sum: 3,
          due: '2024-03-02',
          flag: true,
          link: 'the site',
          oops: null,
          empty: null,
        },
      },
    ]);
  });

  it('when rows are blank, short, or have a value beyond the header, then blanks are skipped and the extra value is a row error', async () => {
    const file = await workbookOf((workbook) => {
      const sheet = workbook.addWorksheet('S');
      sheet.getRow(2).values = ['a', 'b'];
      sheet.getRow(3).values = ['only a'];
      sheet.getRow(5).values = ['x', 'y', 'stray note'];
      sheet.getRow(6).values = [null, 'only b'];
    });

    const rows = await collect(readXlsxRows(streamOf(file)));

    expect(rows).toEqual([
      { ok: true, row: 3, values: { a: 'only a', b: null } },
      { ok: false, row: 5, error: 'Row 5 has a value in column 3, which has no name in the header row' },
      { ok: true, row: 6, values: { a: null, b: 'only b' } },
    ]);
  });

  it.each([
    [
      'truncated',
      async () => (await workbookOf((w) => w.addWorksheet('S').addRow(['a']))).subarray(0, 400),
      'truncated',
    ],
    [
      'not a zip at all',
      async () => Buffer.from('PK\u0003\u0004 this is not really a zip archive'),
      'truncated',
    ],
    ['an empty first sheet', async () => workbookOf((w) => w.addWorksheet('S')), 'empty'],
    [
      'a header repeating a name',
      async () => workbookOf((w) => w.addWorksheet('S').addRow(['a', 'b', 'a'])),
      "column 'a' twice",
    ],
  ])('when the workbook is %s, then it is malformed', async (_what, make, words) => {
    const file = await make();

    await expect(collect(readXlsxRows(streamOf(file, 100)))).rejects.toMatchObject({
      kind: 'malformed_file',
      message: expect.stringContaining(words),
    });
  });

  it('when the upload passes its size limit, then the size error comes out and nothing waits forever', async () => {
    const file = await workbookOf((workbook) => {
      const sheet = workbook.addWorksheet('S');
      sheet.addRow(['a']);
      for (let i = 0; i < 5000; i += 1) sheet.addRow([`row ${i} with some text`]);
    });
    const limit = new SizeLimit(Math.floor(file.length / 2));
    pipeline(streamOf(file, 4096), limit, () => {});

    await expect(collect(readXlsxRows(limit))).rejects.toMatchObject({ kind: 'size_exceeded' });
  });

  it('when the caller stops early, then the upload is released', async () => {
    const file = await workbookOf((workbook) => {
      const sheet = workbook.addWorksheet('S');
      sheet.addRow(['a']);
      for (let i = 0; i < 2000; i += 1) sheet.addRow([i]);
    });
    const input = streamOf(file);

    for await (const _row of readXlsxRows(input)) break;

    expect(input.destroyed).toBe(true);
  });
});
