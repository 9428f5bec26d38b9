import { pipeline, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ImportRecord } from '../src/domain/imports/parsing/import-row.js';
import { readCsvRows } from '../src/domain/imports/parsing/read-csv-rows.js';
import { SizeLimit } from '../src/domain/imports/parsing/size-limit.js';

async function collect(rows: AsyncIterable<ImportRecord>): Promise<ImportRecord[]> {
  const out: ImportRecord[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

/** The text in small chunks, so records and multi-byte characters are split across chunk boundaries. */
const streamOf = (text: string, chunkSize = 97) => {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
  return Readable.from(chunks);
};

describe('readCsvRows', () => {
  it('when a file has a header and a few thousand rows, then every row comes out keyed by column', async () => {
    const lines = ['id,name,note'];
    for (let i = 1; i <= 3000; i += 1) lines.push(`${i},Person ${i} — Åsa,"says ""hi"", twice"`);

    const rows = await collect(readCsvRows(streamOf(`${lines.join('\r\n')}\r\n`)));

    expect(rows).toHaveLength(3000);
    expect(rows[0]).toEqual({
      ok: true,
      row: 2,
      values: { id: '1', name: 'Person 1 — Åsa', note: 'says "hi", twice' },
    });
    expect(rows[2999]).toEqual({
      ok: true,
      row: 3001,
      values: { id: '3000', name: 'Person 3000 — Åsa', note: 'says "hi", twice' },
    });
  });

  it('when the file starts with a BOM and headers have spaces, then the first column name is clean', async () => {
    const rows = await collect(readCsvRows(streamOf('\ufeff name , city \nAda,London\n')));

    expect(rows).toEqual([{ ok: true, row: 2, values: { name: 'Ada', city: 'London' } }]);
  });

  it('when rows have too few or too many values, then they are row errors and the other rows still come', async () => {
    const rows = await collect(readCsvRows(streamOf('a,b\n1,2\n3\n\n4,5,6\n"multi\nline",7\n8,9')));

    expect(rows).toEqual([
      { ok: true, row: 2, values: { a: '1', b: '2' } },
      { ok: false, row: 3, error: 'Row 3 (line 3) has 1 values but the header has 2 columns' },
      { ok: false, row: 5, error: 'Row 5 (line 5) has 3 values but the header has 2 columns' },
      { ok: true, row: 6, values: { a: 'multi\nline', b: '7' } },
      { ok: true, row: 7, values: { a: '8', b: '9' } },
    ]);
  });

  it('when a field has a stray quote or a column has no name, then quotes are text and unnamed empty columns are ignored', async () => {
    const rows = await collect(readCsvRows(streamOf('size,item,\n5" screen,TV,\n6,radio,extra\n')));

    expect(rows).toEqual([
      { ok: true, row: 2, values: { size: '5" screen', item: 'TV' } },
      { ok: false, row: 3, error: 'Row 3 has a value in column 3, which has no name in the header row' },
    ]);
  });

  it('when the delimiter is a semicolon, then it is used', async () => {
    const rows = await collect(readCsvRows(streamOf('a;b\n1,5;2\n'), { delimiter: ';' }));

    expect(rows).toEqual([{ ok: true, row: 2, values: { a: '1,5', b: '2' } }]);
  });

  it('when a column is named __proto__, then it is an ordinary key', async () => {
    const [row] = await collect(readCsvRows(streamOf('__proto__,b\nx,y\n')));

    expect(row?.ok && Object.hasOwn(row.values, '__proto__')).toBe(true);
    expect(row?.ok && Object.getPrototypeOf(row.values)).toBe(Object.prototype);
  });

  it.each([
    ['a quote is never closed', 'a,b\n1,2\n3,"4\n5,6\n', 'Quote Not Closed', 4],
    ['the header repeats a name', 'a,b,a\n1,2,3\n', "column 'a' twice", undefined],
    ['the file is empty', '', 'no header row', undefined],
    ['only blank lines', '\n\n ,\n', 'no header row', undefined],
  ])('when %s, then the file is malformed', async (_what, text, words, line) => {
    const failure = collect(readCsvRows(streamOf(text)));

    await expect(failure).rejects.toMatchObject({
      kind: 'malformed_file',
      message: expect.stringContaining(words),
    });
    if (line !== undefined) await expect(failure).rejects.toMatchObject({ line });
  });

  it('when a quote is never closed late in a large file, then the error says where the last good row was', async () => {
    const text = `a,b\n${'1,2\n'.repeat(5000)}3,"4\n5,6\n`;

    await expect(collect(readCsvRows(streamOf(text, 4096)))).rejects.toMatchObject({
      kind: 'malformed_file',
      message: expect.stringMatching(/Quote Not Closed.*rows up to row \d+ were read before it/),
    });
  });

  it('when a quote swallows more than the record limit, then the file is malformed early', async () => {
    const text = `a\n"${'x'.repeat(5000)}`;

    await expect(collect(readCsvRows(streamOf(text), { maxRecordChars: 1000 }))).rejects.toMatchObject({
      kind: 'malformed_file',
    });
  });

  it('when the upload passes its size limit, then the size error comes out, not a parse error', async () => {
    const limit = new SizeLimit(2000);
    pipeline(streamOf(`a\n${'row\n'.repeat(10_000)}`, 500), limit, () => {});

    await expect(collect(readCsvRows(limit))).rejects.toMatchObject({ kind: 'size_exceeded' });
  });

  it('when the caller stops early, then the upload is released', async () => {
    const input = streamOf(`a\n${'row\n'.repeat(10_000)}`);

    for await (const _row of readCsvRows(input)) break;

    expect(input.destroyed).toBe(true);
  });
});
