import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { asMalformedFile } from '../src/domain/imports/parsing/import-errors.js';
import type { ImportRecord } from '../src/domain/imports/parsing/import-row.js';
import { readImportRecords } from '../src/domain/imports/parsing/read-import-records.js';
import { createReadSlots } from '../src/domain/imports/parsing/read-slots.js';

async function collect(rows: AsyncIterable<ImportRecord>): Promise<ImportRecord[]> {
  const out: ImportRecord[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

const limits = { maxUncompressedBytes: 1024 * 1024, maxCellChars: 100, maxRows: 3 };
const csv = (text: string) => Readable.from([Buffer.from(text)]);

describe('readImportRecords limits', () => {
  it('when a file has more data rows than the limit, then size_exceeded at the first row past it', async () => {
    const failure = collect(readImportRecords('csv', csv('a\n1\n2\n3\n4\n5\n'), limits));

    await expect(failure).rejects.toMatchObject({
      kind: 'size_exceeded',
      row: 5,
      message: 'The file has more than 3 rows, the limit for one import; split it into several files',
    });
  });

  it('when a file has exactly the limit, then every row comes out', async () => {
    const rows = await collect(readImportRecords('csv', csv('a\n1\n2\n3\n'), limits));

    expect(rows.map((r) => r.row)).toEqual([2, 3, 4]);
  });

  it('when a JSON value is longer than the cell limit, then size_exceeded', async () => {
    const json = Readable.from([Buffer.from(JSON.stringify([{ a: 'x'.repeat(101) }]))]);

    await expect(collect(readImportRecords('json', json, limits))).rejects.toMatchObject({
      kind: 'size_exceeded',
      row: 1,
    });
  });
});

describe('NUL (U+0000) in an upload’s rows', () => {
  it('when a CSV value holds NUL, then that row is a row error and the others go on', async () => {
    const rows = await collect(readImportRecords('csv', csv('a,b\nok,1\nbad\u0000,2\nok,3\n'), limits));

    expect(rows).toEqual([
      { ok: true, row: 2, values: { a: 'ok', b: '1' } },
      {
        ok: false,
        row: 3,
        error: "Row 3 has a NUL character (U+0000) in column 'a'; text may not contain NUL",
      },
      { ok: true, row: 4, values: { a: 'ok', b: '3' } },
    ]);
  });

  it('when a nested JSON key or value holds NUL, then that row is a row error', async () => {
    const text = `${JSON.stringify({ a: { 'k\u0000': 1 } })}\n${JSON.stringify({ a: ['x\u0000'] })}\n{"a":"fine"}\n`;

    const rows = await collect(readImportRecords('json', Readable.from([Buffer.from(text)]), limits));

    expect(rows.map((r) => r.ok)).toEqual([false, false, true]);
  });

  it('when a header names a column with NUL, then the file is malformed', async () => {
    await expect(collect(readImportRecords('csv', csv('a\u0000\n1\n'), limits))).rejects.toMatchObject({
      kind: 'malformed_file',
    });
  });
});

describe('asMalformedFile', () => {
  it('when a library throws a runtime error, then its words stay in the cause', () => {
    const cause = new RangeError('Invalid string length');

    const error = asMalformedFile(cause, 'The XLSX workbook could not be read');

    expect(error).toMatchObject({
      kind: 'malformed_file',
      message: 'The XLSX workbook could not be read',
      cause,
    });
  });
});

describe('createReadSlots', () => {
  it('when every slot is taken, then none is given until one is released, once', () => {
    const slots = createReadSlots(2);
    const first = slots.tryAcquire();
    const second = slots.tryAcquire();

    const third = slots.tryAcquire();
    first?.();
    first?.();
    const fourth = slots.tryAcquire();
    const fifth = slots.tryAcquire();

    expect([first, second, fourth].every((r) => typeof r === 'function')).toBe(true);
    expect(third).toBeUndefined();
    expect(fifth).toBeUndefined();
  });
});
