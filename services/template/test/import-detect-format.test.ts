import { describe, expect, it } from 'vitest';
import { detectFormat } from '../src/domain/imports/parsing/detect-format.js';

const zipWith = (firstEntry: string) => {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(Buffer.byteLength(firstEntry), 26);
  return Buffer.concat([header, Buffer.from(firstEntry), Buffer.alloc(64)]);
};
const xlsxHead = zipWith('[Content_Types].xml');
const xlsHead = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]);
const text = (s: string) => Buffer.from(s, 'utf8');

describe('detectFormat', () => {
  it.each([
    ['people.csv', text('name,age\nAda,36\n'), 'csv'],
    ['PEOPLE.CSV', text('\ufeffname;age\n'), 'csv'],
    ['dir/people.csv', text('[not json],x\n'), 'csv'],
    ['people.json', text('  \n[{"a":1}]'), 'json'],
    ['people.json', text('\ufeff{"a":1}\n'), 'json'],
    ['people.ndjson', text('{"a":1}\n'), 'json'],
    ['people.jsonl', text('{"a":1}\n'), 'json'],
    ['book.xlsx', xlsxHead, 'xlsx'],
    ['book.xlsx', zipWith('xl/workbook.xml'), 'xlsx'],
    ['book.XLS', xlsHead, 'xls'],
    // the head may end in the middle of a multi-byte character
    ['cut.csv', text('name\nÅsa').subarray(0, 7), 'csv'],
  ])('when %s starts as expected, then it is %s', (name, head, kind) => {
    expect(detectFormat(name, head)).toBe(kind);
  });

  it.each([
    ['notes.txt', text('a,b\n')],
    ['report.pdf', text('%PDF-1.7\n')],
    ['archive.zip', xlsxHead],
    ['no-extension', text('a,b\n')],
    ['trailing-dot.', text('a,b\n')],
    ['.csv', text('a,b\n')],
    ['macro.xlsm', xlsxHead],
  ])('when the file is %s, then it is refused as unsupported_type', (name, head) => {
    expect(() => detectFormat(name, head)).toThrow(expect.objectContaining({ kind: 'unsupported_type' }));
  });

  it.each([
    ['a zip that is not a workbook', zipWith('mimetype')],
    ['a Word-like zip', zipWith('word/document.xml')],
  ])('when an .xlsx is %s, then it is refused as unsupported_type', (_what, head) => {
    expect(() => detectFormat('book.xlsx', head)).toThrow(
      expect.objectContaining({
        kind: 'unsupported_type',
        message: expect.stringContaining('not an Excel workbook'),
      }),
    );
  });

  it.each([
    ['book.xlsx', xlsHead, 'OLE2'],
    ['book.xlsx', text('name,age\n'), 'not a zip'],
    ['book.xls', xlsxHead, 'zip archive'],
    ['book.xls', text('<html>'), 'not an OLE2'],
    ['data.json', text('name,age\n'), 'plain text'],
    ['data.json', text('   \n  '), 'whitespace'],
    ['data.csv', xlsxHead, 'zip archive'],
    ['data.csv', xlsHead, 'OLE2'],
    ['data.csv', Buffer.from([0xff, 0xfe, 0x61, 0x00]), 'UTF-16'],
    ['data.csv', Buffer.from([0x61, 0x00, 0x62]), 'binary'],
    [
      'data.csv',
      Buffer.concat([text('%PDF-1.7\n%'), Buffer.from([0xe2, 0xe3, 0xcf, 0xd3]), text('\n1 0 obj')]),
      'binary',
    ],
    ['data.csv', Buffer.from([0x61, 0xc3, 0x28, 0x62]), 'not UTF-8'],
    ['data.csv', Buffer.alloc(0), 'empty'],
  ])(
    'when %s holds contradicting content, then it is refused as malformed_file (%#)',
    (name, head, words) => {
      expect(() => detectFormat(name, head)).toThrow(
        expect.objectContaining({ kind: 'malformed_file', message: expect.stringContaining(words) }),
      );
    },
  );
});
