import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  escapeFormatText,
  parseFormat,
  placeholdersWithoutColumn,
  renderRow,
} from '../src/domain/imports/format-string.js';
import { ImportError } from '../src/domain/imports/parsing/import-errors.js';

function parseError(format: string): ImportError {
  try {
    parseFormat(format);
  } catch (error) {
    if (error instanceof ImportError) return error;
    throw error;
  }
  throw new Error(`expected '${format}' to be refused`);
}

describe('parseFormat', () => {
  it('when a format has placeholders with and without defaults, then it lists them in order with positions', () => {
    const parsed = parseFormat('{name} lives in {city|an unknown city}.');

    expect(parsed.placeholders).toEqual([
      { name: 'name', position: 0 },
      { name: 'city', default: 'an unknown city', position: 16 },
    ]);
    expect(parsed.parts).toEqual([
      { kind: 'field', name: 'name', position: 0 },
      { kind: 'text', text: ' lives in ' },
      { kind: 'field', name: 'city', default: 'an unknown city', position: 16 },
      { kind: 'text', text: '.' },
    ]);
  });

  it('when a name has surrounding or inner spaces, then the surrounding ones are ignored and the default is kept as written', () => {
    const parsed = parseFormat('{  First Name  | n/a |x }');

    expect(parsed.placeholders).toEqual([{ name: 'First Name', default: ' n/a |x ', position: 0 }]);
  });

  it('when a placeholder ends in a bare bar, then its default is the empty string', () => {
    expect(parseFormat('{a|}').placeholders).toEqual([{ name: 'a', default: '', position: 0 }]);
  });

  it('when a format has a section, then its text and placeholders are its parts, and its name is listed', () => {
    const parsed = parseFormat('Task {title}{# due }, due {due|?}{/due}.');

    expect(parsed.parts).toEqual([
      { kind: 'text', text: 'Task ' },
      { kind: 'field', name: 'title', position: 5 },
      {
        kind: 'section',
        name: 'due',
        position: 12,
        parts: [
          { kind: 'text', text: ', due ' },
          { kind: 'field', name: 'due', default: '?', position: 26 },
        ],
      },
      { kind: 'text', text: '.' },
    ]);
    expect(parsed.sections).toEqual([{ name: 'due', position: 12 }]);
    expect(parsed.placeholders.map((p) => p.name)).toEqual(['title', 'due']);
  });

  it('when braces are doubled, then they are literal text', () => {
    const parsed = parseFormat('{{not a field}} and {field}}}');

    expect(parsed.placeholders.map((p) => p.name)).toEqual(['field']);
    expect(renderRow(parsed, { field: 'x' }).text).toBe('{not a field} and x}');
  });

  it.each([
    ['', 0, 'empty'],
    ['   ', 0, 'empty'],
    ['Hello {}', 6, 'no field name'],
    ['Hello { |default}', 6, 'no field name'],
    ['Hello {name', 6, 'not closed'],
    ['a {b {c}', 5, "'{' at position 5"],
    ['cost: 5}', 7, "unmatched '}'"],
    ['{a}}', 3, "unmatched '}'"],
    ['{a}{#b} x', 3, 'not closed'],
    ['{a}{#b}{#c}{/c}{/b}', 7, 'do not nest'],
    ['{a}{#b}{/c}', 7, 'the open one is {#b}'],
    ['{a}{/b}', 3, 'closes no open section'],
    ['{a}{#}{/}', 3, 'no field name'],
    ['{a}{#b|x}{/b}', 3, 'takes none'],
  ])('when the format is %j, then it is refused at position %i', (format, position, words) => {
    const error = parseError(format);

    expect(error).toMatchObject({ kind: 'format_string', position });
    expect(error.message).toContain(words);
  });
});

describe('renderRow', () => {
  const parsed = parseFormat('{name} ({age|age unknown}) likes {food|nothing} {note}');

  it('when every column has a value, then the values fill the placeholders', () => {
    expect(renderRow(parsed, { name: 'Ada', age: 36, food: 'tea', note: '!' })).toEqual({
      text: 'Ada (36) likes tea !',
      missing: [],
    });
  });

  it('when columns are missing, null or blank, then defaults or nothing render, and those without a default are named', () => {
    expect(renderRow(parsed, { name: 'Ada', age: null, food: '  ' })).toEqual({
      text: 'Ada (age unknown) likes nothing ',
      missing: ['note'],
    });
  });

  it('when a section’s column is empty, then its whole phrase is left out and nothing inside counts as missing', () => {
    const sectioned = parseFormat('{name}{#city} lives in {city}{/city}{#city}, near {landmark}{/city}.');

    expect(renderRow(sectioned, { name: 'Bo', city: ' ', landmark: '' })).toEqual({
      text: 'Bo.',
      missing: [],
    });
    expect(renderRow(sectioned, { name: 'Bo', city: 'Oslo', landmark: '' })).toEqual({
      text: 'Bo lives in Oslo, near .',
      missing: ['landmark'],
    });
  });

  it('when values are of other types, then they are spelled as a person expects', () => {
    const format = parseFormat('{n}|{f}|{neg0}|{nan}|{big}|{yes}|{no}|{date}|{bad}|{list}|{obj}|{undef}');
    const row = {
      n: 42,
      f: 1.5,
      neg0: -0,
      nan: Number.NaN,
      big: 12345678901234567890n,
      yes: true,
      no: false,
      date: new Date(Date.UTC(2024, 2, 1, 12, 0, 0)),
      bad: new Date(Number.NaN),
      list: [1, 'two'],
      obj: { a: { b: 1n } },
      undef: undefined,
    };

    expect(renderRow(format, row).text).toBe(
      '42|1.5|0||12345678901234567890|true|false|2024-03-01T12:00:00.000Z||[1,"two"]|{"a":{"b":"1"}}|',
    );
  });

  it('when a placeholder names an inherited property, then it renders as missing', () => {
    const format = parseFormat('{constructor|none} {toString} {__proto__|p}');

    expect(renderRow(format, {}).text).toBe('none  p');
    expect(renderRow(format, JSON.parse('{"__proto__": "own"}')).text).toBe('none  own');
  });

  it('when any text is escaped, then a format of it renders exactly that text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (text) => {
        fc.pre(text.trim() !== '');
        const format = parseFormat(escapeFormatText(text));

        expect(format.placeholders).toEqual([]);
        expect(renderRow(format, { anything: 'x' }).text).toBe(text);
      }),
    );
  });

  it('when placeholders are filled with non-blank values, then each value appears in order (property)', () => {
    const literal = fc.string({ maxLength: 8 }).map(escapeFormatText);
    const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_ ]{0,10}[A-Za-z0-9_]$|^[A-Za-z_]$/);
    const value = fc.string({ minLength: 1, maxLength: 12 }).filter((v) => v.trim() !== '');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(literal, name, value), { minLength: 1, maxLength: 6 }),
        literal,
        (pieces, tail) => {
          const row: Record<string, string> = {};
          for (const [, key, v] of pieces) row[key] ??= v;
          const format = pieces.map(([text, key]) => `${text}{${key}|default}`).join('') + tail;

          const out = renderRow(parseFormat(format), row).text;

          let from = 0;
          for (const [, key] of pieces) {
            const at = out.indexOf(row[key] as string, from);
            expect(at).toBeGreaterThanOrEqual(from);
            from = at + (row[key] as string).length;
          }
        },
      ),
    );
  });
});

describe('placeholdersWithoutColumn', () => {
  it('when placeholders name columns the file lacks, then each missing name is listed once', () => {
    const parsed = parseFormat('{a} {b|x} {c} {b} {A}');

    expect(placeholdersWithoutColumn(parsed, ['a', 'c'])).toEqual(['b', 'A']);
    expect(placeholdersWithoutColumn(parsed, new Set(['a', 'b', 'c', 'A']))).toEqual([]);
  });

  it('when a section names a column the file lacks, then it is listed with the placeholders, in order', () => {
    const parsed = parseFormat('{a}{#region} in {region|?}{/region}{#b}{b}{/b}');

    expect(placeholdersWithoutColumn(parsed, ['a', 'b'])).toEqual(['region']);
  });
});
