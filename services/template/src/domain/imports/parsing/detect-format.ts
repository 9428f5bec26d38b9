import { ImportError } from './import-errors.js';

/**
 * Which reader a file goes to, decided from its name and its first bytes together. The name alone
 * would let a renamed binary reach the CSV reader; the bytes alone cannot tell CSV from any other
 * text. So the extension must be one the import supports, and the content must agree with it:
 * an unsupported extension is `unsupported_type`, content that contradicts a supported extension is
 * `malformed_file`.
 */
export type ImportFileKind = 'csv' | 'json' | 'xlsx' | 'xls';

/** How many leading bytes detectFormat wants; fewer is fine when the file is shorter. */
export const SNIFF_BYTES = 4096;

const EXTENSIONS: Readonly<Record<string, ImportFileKind>> = {
  csv: 'csv',
  json: 'json',
  ndjson: 'json',
  jsonl: 'json',
  xlsx: 'xlsx',
  xls: 'xls',
};

const ZIP = [0x50, 0x4b, 0x03, 0x04];
const OLE2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** The kind a file name's extension claims, or `unsupported_type`: checked before any byte arrives. */
export function fileKindOfName(fileName: string): ImportFileKind {
  const extension = extensionOf(fileName);
  const kind = extension === undefined ? undefined : EXTENSIONS[extension];
  if (kind === undefined) {
    throw new ImportError(
      'unsupported_type',
      `Unsupported file type${extension ? ` '.${extension}'` : ''}: upload a CSV, Excel (.xlsx, .xls) or JSON file`,
    );
  }
  return kind;
}

export function detectFormat(fileName: string, head: Uint8Array): ImportFileKind {
  const kind = fileKindOfName(fileName);
  if (head.length === 0) throw new ImportError('malformed_file', 'The file is empty');

  const content = describeContent(head);
  switch (kind) {
    case 'xlsx':
      if (content === 'zip') return checkZipIsWorkbook(head);
      if (content === 'ole2') {
        throw contradiction(
          fileName,
          'an OLE2 compound file (an old .xls workbook, or a password-protected workbook, which cannot be imported)',
        );
      }
      throw contradiction(fileName, 'not a zip archive, as every .xlsx workbook is');
    case 'xls':
      if (content === 'ole2') return 'xls';
      throw contradiction(
        fileName,
        content === 'zip'
          ? 'a zip archive (perhaps a .xlsx workbook)'
          : 'not an OLE2 compound file, as every .xls workbook is',
      );
    case 'json':
      if (content === 'json') return 'json';
      throw contradiction(
        fileName,
        `${contentName(content)}; a JSON import starts with '[' (an array of objects) or '{' (one object per line)`,
      );
    case 'csv':
      if (content === 'json' || content === 'text') return 'csv';
      throw contradiction(fileName, contentName(content));
  }
}

type Content = 'zip' | 'ole2' | 'json' | 'text' | 'utf16' | 'binary' | 'blank';

function describeContent(head: Uint8Array): Content {
  if (startsWith(head, ZIP)) return 'zip';
  if (startsWith(head, OLE2)) return 'ole2';
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return 'utf16';
  if (head.includes(0) || !isUtf8Prefix(head)) return 'binary';
  let i = startsWith(head, UTF8_BOM) ? UTF8_BOM.length : 0;
  while (i < head.length && isJsonWhitespace(head[i])) i += 1;
  if (i === head.length) return 'blank';
  return head[i] === 0x5b || head[i] === 0x7b ? 'json' : 'text';
}

function contentName(content: Content): string {
  switch (content) {
    case 'zip':
      return 'a zip archive';
    case 'ole2':
      return 'an OLE2 compound file (an old Office document)';
    case 'utf16':
      return 'UTF-16 text; save it as UTF-8';
    case 'binary':
      return 'binary or not UTF-8 encoded; save it as UTF-8 text';
    case 'blank':
      return 'only whitespace';
    case 'json':
      return 'JSON';
    case 'text':
      return 'plain text';
  }
}

function contradiction(fileName: string, what: string): ImportError {
  return new ImportError(
    'malformed_file',
    `The file '${fileName}' does not match its extension: its content is ${what}`,
  );
}

/**
 * An XLSX workbook is a zip whose entries are Office Open XML parts. Writers put `[Content_Types].xml`
 * or another package part first; the first entry's name therefore tells a workbook from an arbitrary
 * zip renamed to .xlsx, without reading the archive's central directory at its end. A Word or
 * PowerPoint file passes this check and is refused by the XLSX reader (no worksheet).
 */
function checkZipIsWorkbook(head: Uint8Array): ImportFileKind {
  const name = firstZipEntryName(head);
  const ooxmlPart =
    name !== undefined &&
    (name === '[Content_Types].xml' ||
      ['_rels/', 'docProps/', 'xl/', 'customXml/'].some((p) => name.startsWith(p)));
  if (!ooxmlPart) {
    throw new ImportError(
      'unsupported_type',
      'Unsupported file type: the file is a zip archive but not an Excel workbook; upload a CSV, Excel (.xlsx, .xls) or JSON file',
    );
  }
  return 'xlsx';
}

/** The name in the zip's first local file header (fixed 30-byte header, then the name). */
function firstZipEntryName(head: Uint8Array): string | undefined {
  if (head.length < 30) return undefined;
  const nameLength = (head[26] ?? 0) | ((head[27] ?? 0) << 8);
  if (nameLength === 0 || head.length < 30 + nameLength) return undefined;
  return Buffer.from(head.subarray(30, 30 + nameLength)).toString('utf8');
}

function extensionOf(fileName: string): string | undefined {
  const base = fileName.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot <= 0 || dot === base.length - 1 ? undefined : base.slice(dot + 1).toLowerCase();
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

function isJsonWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** Valid UTF-8, allowing the head to end in the middle of a character (it is a cut of a longer file). */
function isUtf8Prefix(head: Uint8Array): boolean {
  try {
    // in streaming mode an incomplete last character is held back, not an error; invalid bytes still are
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}
