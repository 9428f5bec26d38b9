import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { SaxesParser } from 'saxes';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { ImportError } from './import-errors.js';

/**
 * exceljs's streaming reader takes a workbook's zip entries in the order they are stored and only
 * works when the order is Excel's (workbook, relationships, styles and shared strings before the
 * sheets). SheetJS and others store `xl/worksheets/sheet1.xml` before `xl/workbook.xml`, which it
 * refused with "Cannot read properties of undefined (reading 'sheets')". So the zip is opened by its
 * central directory (yauzl, random access) and the parts the reader needs are handed to it again,
 * in its order, under the names it expects: the first tab (by the workbook, not by storage order)
 * as `xl/worksheets/sheet1.xml`. Other sheets, images and macros are never unpacked.
 *
 * The parts' sizes are the ones the zip declares, checked against `maxUncompressedBytes` before any
 * is inflated; yauzl fails an entry that inflates past its declared size, so a lying header cannot
 * get round the bound (a 1.7 MB file expanding to 559 MB of shared strings is refused up front).
 */
export async function repackXlsxForStreaming(
  zipBytes: Buffer,
  limits: { maxUncompressedBytes: number },
): Promise<Readable> {
  const zip = await openZip(zipBytes);
  const entries = await listEntries(zip);
  const part = (name: string) => entries.get(name.toLowerCase());
  const budget = new SizeBudget(limits.maxUncompressedBytes);

  const workbookEntry = part('xl/workbook.xml');
  if (workbookEntry === undefined) {
    throw new ImportError('malformed_file', 'The XLSX file has no workbook part; is it an Excel workbook?');
  }
  const relsEntry = part('xl/_rels/workbook.xml.rels');
  const rels = relsEntry === undefined ? [] : parseRelationships(await readText(zip, relsEntry, budget));
  const firstSheetId = parseFirstSheetRelId(await readText(zip, workbookEntry, budget));
  const target = (id: string | undefined) => rels.find((r) => r.id === id)?.target;
  const byType = (suffix: string) => rels.find((r) => r.type.endsWith(suffix))?.target;

  const sheetEntry = part(target(firstSheetId) ?? 'xl/worksheets/sheet1.xml') ?? firstStoredSheet(entries);
  if (sheetEntry === undefined) {
    throw new ImportError('malformed_file', 'The XLSX file has no worksheet; is it an Excel workbook?');
  }
  const stylesEntry = part(byType('/styles') ?? 'xl/styles.xml');
  const stringsEntry = part(byType('/sharedStrings') ?? 'xl/sharedStrings.xml');
  for (const entry of [stylesEntry, stringsEntry, sheetEntry]) if (entry) budget.take(entry);

  const out = new yazl.ZipFile();
  const add = (entry: yauzl.Entry, name: string) =>
    out.addReadStreamLazy(name, { compressionLevel: 1 }, (done) => zip.openReadStream(entry, done));
  if (relsEntry) add(relsEntry, 'xl/_rels/workbook.xml.rels');
  add(workbookEntry, 'xl/workbook.xml');
  if (stylesEntry) add(stylesEntry, 'xl/styles.xml');
  // without shared strings exceljs parks every sheet in a temp file to wait for them
  if (stringsEntry) add(stringsEntry, 'xl/sharedStrings.xml');
  else
    out.addBuffer(
      Buffer.from('<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"/>'),
      'xl/sharedStrings.xml',
    );
  add(sheetEntry, 'xl/worksheets/sheet1.xml');
  out.end();
  const stream = out.outputStream as Readable;
  out.on('error', (error: unknown) => stream.destroy(zipFailure(error)));
  return stream;
}

/** What the parts read so far may still expand to. */
class SizeBudget {
  private left: number;
  constructor(private readonly max: number) {
    this.left = max;
  }
  take(entry: yauzl.Entry): void {
    this.left -= entry.uncompressedSize;
    if (this.left < 0) {
      throw new ImportError(
        'size_exceeded',
        `The workbook expands to more than ${this.max} bytes when unzipped, the import limit; split it or save it as CSV`,
      );
    }
  }
}

function openZip(bytes: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true, validateEntrySizes: true }, (err, zip) =>
      err || !zip ? reject(zipFailure(err)) : resolve(zip),
    );
  });
}

/** Entries by lower-cased name: OPC part names compare without case. */
function listEntries(zip: yauzl.ZipFile): Promise<Map<string, yauzl.Entry>> {
  return new Promise((resolve, reject) => {
    const entries = new Map<string, yauzl.Entry>();
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.set(entry.fileName.toLowerCase(), entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', (err) => reject(zipFailure(err)));
    zip.readEntry();
  });
}

async function readText(zip: yauzl.ZipFile, entry: yauzl.Entry, budget: SizeBudget): Promise<string> {
  budget.take(entry);
  const stream = await new Promise<Readable>((resolve, reject) =>
    zip.openReadStream(entry, (err, s) => (err || !s ? reject(zipFailure(err)) : resolve(s))),
  );
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  } catch (err) {
    throw zipFailure(err);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function firstStoredSheet(entries: Map<string, yauzl.Entry>): yauzl.Entry | undefined {
  for (const [name, entry] of entries) if (/^xl\/worksheets\/[^/]+\.xml$/.test(name)) return entry;
  return undefined;
}

type Relationship = { id: string; type: string; target: string };

/** Targets are relative to `xl/` unless absolute; returned as zip entry names. */
function parseRelationships(xml: string): Relationship[] {
  const rels: Relationship[] = [];
  parseXml(xml, (name, attr) => {
    if (name !== 'Relationship') return;
    const target = attr('Target') ?? '';
    rels.push({
      id: attr('Id') ?? '',
      type: attr('Type') ?? '',
      target: target.startsWith('/') ? target.slice(1) : posix.normalize(`xl/${target}`),
    });
  });
  return rels;
}

/** The relationship id of the workbook's first `<sheet>`: the first tab, whatever the storage order. */
function parseFirstSheetRelId(xml: string): string | undefined {
  let id: string | undefined;
  parseXml(xml, (name, attr) => {
    if (name === 'sheet' && id === undefined) id = attr('id', true);
  });
  return id;
}

/** Calls `onTag` per element by local name; `attr(local, prefixed)` finds an attribute by local name. */
function parseXml(
  xml: string,
  onTag: (name: string, attr: (local: string, prefixed?: boolean) => string | undefined) => void,
): void {
  const parser = new SaxesParser({ xmlns: true });
  parser.on('opentag', (node) => {
    const attributes = Object.values(node.attributes);
    onTag(
      node.local ?? node.name,
      (local, prefixed = false) =>
        attributes.find((a) => a.local === local && (a.prefix !== '') === prefixed)?.value,
    );
  });
  try {
    parser.write(xml).close();
  } catch (err) {
    throw new ImportError('malformed_file', 'The XLSX workbook part is not well-formed XML', { cause: err });
  }
}

/** yauzl's words ('invalid central directory file header signature') mean little to whoever uploaded. */
function zipFailure(error: unknown): ImportError {
  if (error instanceof ImportError) return error;
  const message = error instanceof Error ? error.message : '';
  if (/too many bytes|expected \d+ bytes|uncompressed size/i.test(message)) {
    return new ImportError(
      'malformed_file',
      'The XLSX file is corrupted: a part expands past the size its zip directory declares',
      { cause: error },
    );
  }
  return new ImportError(
    'malformed_file',
    'The XLSX file is not a complete zip archive: it is truncated or corrupted',
    { cause: error },
  );
}
