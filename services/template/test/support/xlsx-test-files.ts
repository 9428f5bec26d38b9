import { Readable } from 'node:stream';
import * as XLSX from '@e965/xlsx';
import ExcelJS from 'exceljs';
import yauzl from 'yauzl';
import yazl from 'yazl';

/**
 * Workbooks made at test time rather than committed as binaries: as Excel-like writers (exceljs)
 * and SheetJS write them, re-zipped in another order, and hand-packed ones that expand far past
 * their size (a zip bomb, one huge cell).
 */
type Cell = string | number | null;

export async function exceljsWorkbook(rows: Cell[][]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('First');
  for (const row of rows) sheet.addRow(row);
  workbook.addWorksheet('Second').addRow(['not', 'imported']);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** SheetJS stores the sheet before `xl/workbook.xml` and, by default, no shared strings. */
export function sheetjsWorkbook(rows: Cell[][]): Buffer {
  const workbook = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet(rows), 'First');
  XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet([['not', 'imported']]), 'Second');
  return XLSX.write(workbook, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
}

/** The same parts, stored in the order `order` gives their names. */
export async function rezip(file: Buffer, order: (names: string[]) => string[]): Promise<Buffer> {
  const parts = await unzipAll(file);
  const out = new yazl.ZipFile();
  for (const name of order([...parts.keys()])) out.addBuffer(parts.get(name) as Buffer, name);
  out.end();
  return collect(out.outputStream);
}

/** Worksheets first, the workbook last: the order that broke the streaming reader. */
export const sheetsFirst = (names: string[]) => {
  const rank = (n: string) => (n.startsWith('xl/worksheets/') ? 0 : n === 'xl/workbook.xml' ? 2 : 1);
  return [...names].sort((a, b) => rank(a) - rank(b));
};

/**
 * A small file whose one shared string is `chars` characters: a huge cell, and past a limit on
 * unzipped bytes a zip bomb (repeated text deflates about a thousandfold). The text is streamed
 * into the zip, never held whole.
 */
export async function workbookWithHugeSharedString(chars: number): Promise<Buffer> {
  const ns = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const out = new yazl.ZipFile();
  const add = (name: string, text: string) => out.addBuffer(Buffer.from(text), name);
  add(
    '[Content_Types].xml',
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>',
  );
  add(
    '_rels/.rels',
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  );
  add(
    'xl/workbook.xml',
    `<workbook xmlns="${ns}" xmlns:r="${rel}"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
  );
  add(
    'xl/_rels/workbook.xml.rels',
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      `<Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/>` +
      `<Relationship Id="rId2" Type="${rel}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
  );
  add(
    'xl/worksheets/sheet1.xml',
    `<worksheet xmlns="${ns}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>text</t></is></c></row>` +
      '<row r="2"><c r="A2" t="s"><v>0</v></c></row></sheetData></worksheet>',
  );
  out.addReadStream(Readable.from(repeatedText(chars)), 'xl/sharedStrings.xml', { compressionLevel: 9 });
  out.end();
  return collect(out.outputStream);
}

function* repeatedText(chars: number): Generator<Buffer> {
  yield Buffer.from('<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>');
  const block = Buffer.alloc(1024 * 1024, 'A');
  for (let left = chars; left > 0; left -= block.length)
    yield block.subarray(0, Math.min(left, block.length));
  yield Buffer.from('</t></si></sst>');
}

async function unzipAll(file: Buffer): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(file, { lazyEntries: true }, (err, z) => (err || !z ? reject(err) : resolve(z))),
  );
  const parts = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      // folders are implied by their files' names
      if (entry.fileName.endsWith('/')) return zip.readEntry();
      zip.openReadStream(entry, (err, stream) => {
        if (err || !stream) return reject(err);
        void collect(stream).then((data) => {
          parts.set(entry.fileName, data);
          zip.readEntry();
        }, reject);
      });
    });
    zip.once('end', resolve);
    zip.once('error', reject);
    zip.readEntry();
  });
  return parts;
}

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
