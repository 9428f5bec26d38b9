import { pipeline, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ImportRecord } from '../src/domain/imports/parsing/import-row.js';
import { readJsonRows } from '../src/domain/imports/parsing/read-json-rows.js';
import { SizeLimit } from '../src/domain/imports/parsing/size-limit.js';

async function collect(rows: AsyncIterable<ImportRecord>): Promise<ImportRecord[]> {
  const out: ImportRecord[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

const streamOf = (text: string, chunkSize = 61) => {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
  return Readable.from(chunks);
};

const people = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    name: `Person ${i + 1} "the ${i}th" [x] {y}, Åsa 😀`,
    ok: i % 2 === 0,
  }));

describe('readJsonRows: an array of objects', () => {
  it('when a pretty-printed array holds a few thousand objects, then every object is a row in order', async () => {
    const data = people(3000);

    const rows = await collect(readJsonRows(streamOf(JSON.stringify(data, null, 2))));

    expect(rows).toHaveLength(3000);
    expect(rows).toEqual(data.map((values, i) => ({ ok: true, row: i + 1, values })));
  });

  it('when the file has a BOM and leading blank lines, then it is read', async () => {
    const rows = await collect(readJsonRows(streamOf('\ufeff\n\n  [{"a":1}]\n')));

    expect(rows).toEqual([{ ok: true, row: 1, values: { a: 1 } }]);
  });

  it('when elements are not objects, then they are row errors and objects still come', async () => {
    const rows = await collect(
      readJsonRows(streamOf('[{"a":1}, 2, "s", null, [1], {"nested": {"b": [1, "]"]}}, true]')),
    );

    expect(rows).toEqual([
      { ok: true, row: 1, values: { a: 1 } },
      { ok: false, row: 2, error: 'Element 2 is a number, not an object of column values' },
      { ok: false, row: 3, error: 'Element 3 is a string, not an object of column values' },
      { ok: false, row: 4, error: 'Element 4 is null, not an object of column values' },
      { ok: false, row: 5, error: 'Element 5 is an array, not an object of column values' },
      { ok: true, row: 6, values: { nested: { b: [1, ']'] } } },
      { ok: false, row: 7, error: 'Element 7 is a boolean, not an object of column values' },
    ]);
  });

  it('when the array is empty, then there are no rows', async () => {
    expect(await collect(readJsonRows(streamOf(' [ ] ')))).toEqual([]);
  });

  it('when an object has a __proto__ key, then it is an ordinary key', async () => {
    const [row] = await collect(readJsonRows(streamOf('[{"__proto__": {"polluted": true}}]')));

    expect(row?.ok && Object.hasOwn(row.values, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['an element is invalid JSON', '[\n  {"a": 1},\n  {"a": tru}\n]', 3, 3],
    ['a trailing comma', '[{"a": 1},\n]', 2, 1],
    ['a missing comma', '[{"a": 1} {"a": 2}]', 1, 11],
    ['the array is never closed', '[{"a": 1},\n{"a": 2}', 2, 9],
    ['a string is never closed', '[{"a": "x}]', 1, 12],
    ['text after the array', '[{"a": 1}]\n[{"a": 2}]', 2, 1],
    ['a stray closing brace', '[{"a": 1}}]', 1, 10],
  ])('when %s, then the file is malformed with its line and column', async (_what, text, line, column) => {
    const failure = collect(readJsonRows(streamOf(text, 5)));

    await expect(failure).rejects.toMatchObject({
      kind: 'malformed_file',
      line,
      message: expect.stringContaining(`line ${line}, column ${column}`),
    });
  });

  it('when the error is in a late element of a large array, then the rows before it were yielded', async () => {
    const text = `${JSON.stringify(people(2000)).slice(0, -1)},{"broken": }]`;
    const seen: ImportRecord[] = [];

    await expect(
      (async () => {
        for await (const row of readJsonRows(streamOf(text, 4096))) seen.push(row);
      })(),
    ).rejects.toMatchObject({ kind: 'malformed_file', message: expect.stringContaining('element 2001') });
    expect(seen).toHaveLength(2000);
  });

  it('when one element is larger than the limit, then the file is malformed without holding the rest', async () => {
    const text = `[{"a": "${'x'.repeat(10_000)}"}]`;

    await expect(collect(readJsonRows(streamOf(text, 256), { maxRowChars: 1000 }))).rejects.toMatchObject({
      kind: 'malformed_file',
      message: expect.stringContaining('larger than 1000 characters'),
    });
  });

  it.each([
    ['', 'empty'],
    ['  \n ', 'empty'],
    ['"just a string"', "found '\"'"],
  ])('when the document is %j, then it is malformed', async (text, words) => {
    await expect(collect(readJsonRows(streamOf(text)))).rejects.toMatchObject({
      kind: 'malformed_file',
      message: expect.stringContaining(words),
    });
  });

  it('when the upload passes its size limit, then the size error comes out', async () => {
    const limit = new SizeLimit(5000);
    pipeline(streamOf(JSON.stringify(people(1000)), 1000), limit, () => {});

    await expect(collect(readJsonRows(limit))).rejects.toMatchObject({ kind: 'size_exceeded' });
  });

  it('when the caller stops early, then the upload is released', async () => {
    const input = streamOf(JSON.stringify(people(1000)));

    for await (const _row of readJsonRows(input)) break;

    expect(input.destroyed).toBe(true);
  });
});

describe('readJsonRows: NDJSON', () => {
  it('when each line holds an object, then each line is a row numbered by line', async () => {
    const data = people(3000);
    const text = data.map((p) => JSON.stringify(p)).join('\r\n');

    const rows = await collect(readJsonRows(streamOf(`${text}\n`)));

    expect(rows).toEqual(data.map((values, i) => ({ ok: true, row: i + 1, values })));
  });

  it('when later lines are invalid or not objects, then they are row errors and blank lines are skipped', async () => {
    const rows = await collect(readJsonRows(streamOf('{"a":1}\n\n{"a":\n[1]\n{"a":2}')));

    expect(rows).toEqual([
      { ok: true, row: 1, values: { a: 1 } },
      { ok: false, row: 3, error: 'Line 3 is not valid JSON: Unexpected end of JSON input' },
      { ok: false, row: 4, error: 'Line 4 is an array, not an object of column values' },
      { ok: true, row: 5, values: { a: 2 } },
    ]);
  });

  it('when the file is one pretty-printed object, then it is malformed with advice', async () => {
    await expect(collect(readJsonRows(streamOf('{\n  "a": 1\n}\n')))).rejects.toMatchObject({
      kind: 'malformed_file',
      line: 1,
      message: expect.stringContaining('one object per line'),
    });
  });

  it('when a line is longer than the limit, then the file is malformed', async () => {
    await expect(
      collect(readJsonRows(streamOf(`{"a":1}\n{"a":"${'x'.repeat(5000)}"}\n`), { maxRowChars: 1000 })),
    ).rejects.toMatchObject({ kind: 'malformed_file', line: 2 });
  });
});
