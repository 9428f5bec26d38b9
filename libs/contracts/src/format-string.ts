/**
 * Format strings: a template's `format` and an import's per-row format, e.g.
 * `"{name} lives in {city|an unknown city}."`. The spec shows `{field}` and `{field|default}`; the rest
 * of the syntax is decided here, once, for both:
 *
 * - `{{` and `}}` are a literal `{` and `}` (as in Python's str.format and .NET); a lone `}` outside a
 *   placeholder is an error rather than silently kept, because it usually means a mistyped placeholder.
 * - Inside a placeholder the name is everything before the first `|`, surrounding whitespace ignored
 *   (`{ name }` is `{name}`), so column names with inner spaces (`{First Name}`) work. The default is
 *   everything after the first `|`, kept exactly; `{name|}` says a missing value renders as nothing.
 * - A placeholder cannot contain `{` or `}`, so `{a}}}` and friends stay unambiguous.
 * - Errors carry the 0-based `position` of the offending character: an empty name (`{}`, `{ |x}`), a
 *   `{` never closed, a `{` inside a placeholder, a lone `}`, and a format with no text at all.
 */

export type Placeholder = {
  name: string;
  default?: string;
  /** 0-based offset of the placeholder's `{` in the format string */
  position: number;
};

export type FormatPart = { kind: 'text'; text: string } | ({ kind: 'field' } & Placeholder);

export type ParsedFormat = {
  source: string;
  /** literal text and placeholders in order; adjacent text is merged */
  parts: FormatPart[];
  /** every placeholder in order of appearance; a field used twice appears twice */
  placeholders: Placeholder[];
};

export class FormatStringError extends Error {
  override name = 'FormatStringError';
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

export function parseFormat(format: string): ParsedFormat {
  if (format.trim() === '') {
    throw new FormatStringError('the format string is empty; write the text with {field} placeholders', 0);
  }
  const parts: FormatPart[] = [];
  const placeholders: Placeholder[] = [];
  let text = '';
  let i = 0;
  while (i < format.length) {
    const ch = format[i];
    if (ch === '{' && format[i + 1] === '{') {
      text += '{';
      i += 2;
    } else if (ch === '}' && format[i + 1] === '}') {
      text += '}';
      i += 2;
    } else if (ch === '}') {
      throw new FormatStringError(`unmatched '}' at position ${i}; write '}}' for a literal brace`, i);
    } else if (ch === '{') {
      const placeholder = readPlaceholder(format, i);
      if (text !== '') parts.push({ kind: 'text', text });
      text = '';
      parts.push({ kind: 'field', ...placeholder });
      placeholders.push(placeholder);
      i = format.indexOf('}', i) + 1;
    } else {
      text += ch;
      i += 1;
    }
  }
  if (text !== '') parts.push({ kind: 'text', text });
  return { source: format, parts, placeholders };
}

/** Reads the placeholder whose `{` is at `start`; the caller continues after the next `}`. */
function readPlaceholder(format: string, start: number): Placeholder {
  let end = start + 1;
  while (end < format.length && format[end] !== '}') {
    if (format[end] === '{') {
      throw new FormatStringError(
        `'{' at position ${end} inside the placeholder opened at position ${start}; placeholders cannot contain braces (write '{{' for a literal brace)`,
        end,
      );
    }
    end += 1;
  }
  if (end >= format.length) {
    throw new FormatStringError(
      `the placeholder opened at position ${start} is not closed with '}'; write '{{' for a literal brace`,
      start,
    );
  }
  const inner = format.slice(start + 1, end);
  const bar = inner.indexOf('|');
  const name = (bar < 0 ? inner : inner.slice(0, bar)).trim();
  if (name === '') {
    throw new FormatStringError(
      `the placeholder at position ${start} has no field name; write {field} or {field|default}`,
      start,
    );
  }
  return bar < 0 ? { name, position: start } : { name, default: inner.slice(bar + 1), position: start };
}

/** The distinct field names a format refers to, in order of first use. */
export const placeholderNames = (parsed: ParsedFormat): string[] => [
  ...new Set(parsed.placeholders.map((p) => p.name)),
];

/** Writes `text` so that it parses back to exactly itself, e.g. to pre-fill a format from literal text. */
export function escapeFormatText(text: string): string {
  return text.replaceAll('{', '{{').replaceAll('}', '}}');
}
