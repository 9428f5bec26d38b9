import type { Readable } from 'node:stream';
import { ImportError } from './import-errors.js';
import type { ImportRecord } from './import-row.js';
import { JsonArraySplitter, type JsonElementText } from './json-array-splitter.js';

export type JsonReadOptions = {
  /** Largest array element or NDJSON line, in characters; bounds what is held in memory at once. */
  maxRowChars?: number;
};

const DEFAULT_MAX_ROW_CHARS = 1_000_000;

/**
 * Streams the rows of a JSON upload, in one of two shapes told apart by the first character:
 * - `[` — one array of objects, read element by element (see JsonArraySplitter);
 * - `{` — NDJSON: one object per line, blank lines ignored.
 * Objects are expected to be flat; a nested value is kept and renders as JSON. An element or line
 * that is not an object is a row error. A structural error in an array is a malformed file, since
 * nothing after it can be trusted; in NDJSON a bad line is a row error, as lines stand alone, except
 * the first one: a file whose first line is not an object is most likely one pretty-printed object.
 */
export async function* readJsonRows(
  input: Readable,
  options: JsonReadOptions = {},
): AsyncGenerator<ImportRecord> {
  const maxRowChars = options.maxRowChars ?? DEFAULT_MAX_ROW_CHARS;
  const chunks = decodeUtf8(input);
  // read up to the first significant character to pick the shape, keeping all of it for the reader
  let first = '';
  while (first.trimStart() === '') {
    const next = await chunks.next();
    if (next.done) break;
    first += next.value;
  }
  const opening = first.trimStart()[0];
  try {
    if (opening === '[') {
      yield* readArray(prepend(first, chunks), maxRowChars);
    } else if (opening === '{') {
      yield* readLines(prepend(first, chunks), maxRowChars);
    } else {
      throw new ImportError(
        'malformed_file',
        opening === undefined
          ? 'The JSON file is empty'
          : `The JSON file must start with '[' (an array of objects) or '{' (one object per line), found '${opening}'`,
        { position: 0, line: 1 },
      );
    }
  } finally {
    // releases the upload when the caller stops early or the file is refused
    await chunks.return(undefined);
  }
}

async function* readArray(chunks: AsyncIterable<string>, maxRowChars: number): AsyncGenerator<ImportRecord> {
  const splitter = new JsonArraySplitter(maxRowChars);
  for await (const chunk of chunks) {
    for (const element of splitter.push(chunk)) {
      yield toRecord(element.index, parseElement(element), `Element ${element.index}`);
    }
  }
  splitter.end();
}

function parseElement(element: JsonElementText): unknown {
  try {
    return JSON.parse(element.text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    // V8 reports the offset within the element; turn it into the document's line and column
    const at = /at position (\d+)/.exec(reason);
    const where = at ? locate(element, Number(at[1])) : element;
    throw new ImportError(
      'malformed_file',
      `The JSON file is malformed at line ${where.line}, column ${where.column} (element ${element.index} of the array): ${cleanReason(reason)}`,
      { position: where.position, line: where.line, cause: error },
    );
  }
}

function locate(
  element: JsonElementText,
  offset: number,
): { position: number; line: number; column: number } {
  let { line, column } = element;
  for (let i = 0; i < offset && i < element.text.length; i += 1) {
    if (element.text[i] === '\n') {
      line += 1;
      column = 1;
    } else {
      column += 1;
    }
  }
  return { position: element.position + offset, line, column };
}

/** V8's wording, without its own element-relative position and the (possibly long) quoted input. */
function cleanReason(reason: string): string {
  return reason
    .replace(/\s*in JSON at position \d+.*$/s, '')
    .replace(/,\s*".*" is not valid JSON$/s, '')
    .trim();
}

async function* readLines(chunks: AsyncIterable<string>, maxRowChars: number): AsyncGenerator<ImportRecord> {
  let line = 0;
  let seenObject = false;
  for await (const text of splitLines(chunks, maxRowChars)) {
    line += 1;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const reason = cleanReason(error instanceof Error ? error.message : String(error));
      if (!seenObject) {
        throw new ImportError(
          'malformed_file',
          `The JSON file is malformed at line ${line}: ${reason}. A file starting with '{' must hold one object per line (NDJSON); put several objects in an array instead`,
          { line, cause: error },
        );
      }
      yield { ok: false, row: line, error: `Line ${line} is not valid JSON: ${reason}` };
      continue;
    }
    seenObject = true;
    yield toRecord(line, value, `Line ${line}`);
  }
}

/** Lines without their terminator (`\n` or `\r\n`); a line longer than the cap fails the file. */
async function* splitLines(chunks: AsyncIterable<string>, maxChars: number): AsyncGenerator<string> {
  let pending = '';
  let line = 1;
  for await (const chunk of chunks) {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      yield stripCr(pending.slice(0, newline));
      line += 1;
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
    if (pending.length > maxChars) {
      throw new ImportError(
        'malformed_file',
        `Line ${line} of the JSON file is longer than ${maxChars} characters`,
        {
          line,
        },
      );
    }
  }
  if (pending !== '') yield stripCr(pending);
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

function toRecord(row: number, value: unknown, label: string): ImportRecord {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return { ok: false, row, error: `${label} is ${what}, not an object of column values` };
  }
  return { ok: true, row, values: value as Record<string, unknown> };
}

/** UTF-8 text of the input, chunk by chunk; a BOM is dropped and a character split across chunks is kept whole. */
async function* decodeUtf8(input: Readable): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (text !== '') yield text;
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

async function* prepend(first: string, rest: AsyncIterator<string>): AsyncGenerator<string> {
  try {
    if (first !== '') yield first;
    for (;;) {
      const next = await rest.next();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // a caller that stops early must release the upload stream behind `rest`
    await rest.return?.();
  }
}
