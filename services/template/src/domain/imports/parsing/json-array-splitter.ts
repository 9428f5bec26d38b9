import { ImportError } from './import-errors.js';

/** One element of the top-level array, still as text, with where it starts in the document. */
export type JsonElementText = {
  /** 1-based position in the array */
  index: number;
  text: string;
  /** 0-based character offset, 1-based line and column of the element's first character */
  position: number;
  line: number;
  column: number;
};

/**
 * Splits a JSON document that is one top-level array into the text of its elements, chunk by chunk,
 * so a large array is never held whole: only the element being read is. It tracks just enough of
 * JSON (strings, escapes, nesting) to find the commas and the closing bracket of the top level, and
 * reports the structure's errors with their line and column. Each element's text is then parsed by
 * the caller with JSON.parse, which checks the rest of the grammar and defines `__proto__` as an
 * ordinary key.
 *
 * Written here rather than taken from stream-json, whose README says it is not designed for hostile
 * input, and whose object assembler assigns keys without guarding `__proto__`; an upload is hostile
 * input.
 */
export class JsonArraySplitter {
  private phase: 'start' | 'first-element-or-end' | 'element' | 'in-element' | 'done' = 'start';
  private inString = false;
  private escaped = false;
  private depth = 0;
  private pieces: string[] = [];
  private pieceChars = 0;
  private count = 0;
  private start = { position: 0, line: 1, column: 1 };
  private offset = 0;
  private line = 1;
  private column = 1;

  constructor(private readonly maxElementChars: number) {}

  /** Feeds decoded text; returns the elements completed by it. */
  push(chunk: string): JsonElementText[] {
    const done: JsonElementText[] = [];
    let sliceFrom = this.phase === 'in-element' ? 0 : -1;
    for (let i = 0; i < chunk.length; i += 1) {
      const c = chunk[i] as string;
      switch (this.phase) {
        case 'start':
          if (c === '[') this.phase = 'first-element-or-end';
          else if (!isWhitespace(c)) this.fail(`expected '[' to open the array, found '${c}'`);
          break;
        case 'first-element-or-end':
        case 'element':
          if (isWhitespace(c)) break;
          if (c === ']' && this.phase === 'first-element-or-end') {
            this.phase = 'done';
          } else if (c === ']' || c === ',') {
            this.fail(`expected a value, found '${c}'`);
          } else {
            this.phase = 'in-element';
            this.start = { position: this.offset, line: this.line, column: this.column };
            sliceFrom = i;
            this.scanElementChar(c);
          }
          break;
        case 'in-element': {
          const ended = this.scanElementChar(c);
          if (ended !== undefined) {
            this.pieces.push(chunk.slice(sliceFrom, i));
            done.push(this.finishElement());
            sliceFrom = -1;
            this.phase = ended === ',' ? 'element' : 'done';
          }
          break;
        }
        case 'done':
          if (!isWhitespace(c)) this.fail(`unexpected '${c}' after the array's closing ']'`);
          break;
      }
      this.advance(c);
    }
    if (this.phase === 'in-element' && sliceFrom >= 0) {
      const rest = chunk.slice(sliceFrom);
      this.pieces.push(rest);
      this.pieceChars += rest.length;
      if (this.pieceChars > this.maxElementChars) {
        throw new ImportError(
          'malformed_file',
          `Element ${this.count + 1} of the JSON array (line ${this.start.line}, column ${this.start.column}) is larger than ${this.maxElementChars} characters`,
          { position: this.start.position, line: this.start.line },
        );
      }
    }
    return done;
  }

  /** Call at the end of the input: a document that did not close its array is truncated or malformed. */
  end(): void {
    if (this.phase === 'done') return;
    if (this.phase === 'start') this.fail('the document is empty; expected a JSON array');
    const where = this.inString ? 'inside a string' : 'before the array was closed with ]';
    this.fail(`the document ends ${where}`);
  }

  /** Tracks strings and nesting; returns ',' or ']' when that character ends the element at the top level. */
  private scanElementChar(c: string): ',' | ']' | undefined {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === '\\') this.escaped = true;
      else if (c === '"') this.inString = false;
      return undefined;
    }
    if (c === '"') this.inString = true;
    else if (c === '{' || c === '[') this.depth += 1;
    else if (c === '}' || c === ']') {
      if (this.depth > 0) this.depth -= 1;
      else if (c === ']') return ']';
      else this.fail(`unexpected '}'`);
    } else if (c === ',' && this.depth === 0) return ',';
    return undefined;
  }

  private finishElement(): JsonElementText {
    const text = this.pieces.join('').trimEnd();
    this.pieces = [];
    this.pieceChars = 0;
    this.count += 1;
    if (text.length > this.maxElementChars) {
      throw new ImportError(
        'malformed_file',
        `Element ${this.count} of the JSON array (line ${this.start.line}, column ${this.start.column}) is larger than ${this.maxElementChars} characters`,
        { position: this.start.position, line: this.start.line },
      );
    }
    return { index: this.count, text, ...this.start };
  }

  private advance(c: string): void {
    this.offset += 1;
    if (c === '\n') {
      this.line += 1;
      this.column = 1;
    } else {
      this.column += 1;
    }
  }

  private fail(reason: string): never {
    throw new ImportError(
      'malformed_file',
      `The JSON file is malformed at line ${this.line}, column ${this.column}: ${reason}`,
      { position: this.offset, line: this.line },
    );
  }
}

function isWhitespace(c: string): boolean {
  return c === ' ' || c === '\n' || c === '\r' || c === '\t';
}
