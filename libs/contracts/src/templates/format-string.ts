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
 * - A section `{#field}…{/field}` keeps its text only when the field has a value, so an optional field
 *   left empty drops its whole phrase (`Task "{title}"{#due_date}, due {due_date}{/due_date}.`) instead
 *   of rendering a stand-in word into the sentence. The markers follow Mustache's `#`/`/`; sections do
 *   not nest, take no default, and each closes the one it opened. A name starting with `#` or `/` is
 *   therefore a section marker, never a field.
 * - Errors carry the 0-based `position` of the offending character: an empty name (`{}`, `{ |x}`), a
 *   `{` never closed, a `{` inside a placeholder, a lone `}`, a section not closed, closed out of order
 *   or nested, and a format with no text at all.
 */

export type Placeholder = {
  name: string;
  default?: string;
  /** 0-based offset of the placeholder's `{` in the format string */
  position: number;
};

export type InlinePart = { kind: 'text'; text: string } | ({ kind: 'field' } & Placeholder);

/** `{#name}…{/name}`: its parts render only when `name` has a value. */
export type Section = { kind: 'section'; name: string; position: number; parts: InlinePart[] };

export type FormatPart = InlinePart | Section;

export type ParsedFormat = {
  source: string;
  /** literal text, placeholders and sections in order; adjacent text is merged */
  parts: FormatPart[];
  /** every placeholder in order of appearance, those inside sections too; a field used twice appears twice */
  placeholders: Placeholder[];
  /** every section in order of appearance */
  sections: Array<{ name: string; position: number }>;
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
  const sections: ParsedFormat['sections'] = [];
  let open: Section | null = null;
  // where text and placeholders go: the open section's parts, else the format's
  const target = (): FormatPart[] => open?.parts ?? parts;
  let text = '';
  const flush = () => {
    if (text !== '') target().push({ kind: 'text', text });
    text = '';
  };
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
      flush();
      const marker = placeholder.name[0];
      if (marker === '#' || marker === '/') {
        const name = sectionName(placeholder, format, i);
        if (marker === '#') {
          if (open) {
            throw new FormatStringError(
              `the section {#${name}} at position ${i} is inside the section {#${open.name}}; sections do not nest`,
              i,
            );
          }
          open = { kind: 'section', name, position: i, parts: [] };
          parts.push(open);
          sections.push({ name, position: i });
        } else {
          if (open?.name !== name) {
            throw new FormatStringError(
              open
                ? `{/${name}} at position ${i} closes no open section; the open one is {#${open.name}}, closed by {/${open.name}}`
                : `{/${name}} at position ${i} closes no open section; open it first with {#${name}}`,
              i,
            );
          }
          open = null;
        }
      } else {
        target().push({ kind: 'field', ...placeholder });
        placeholders.push(placeholder);
      }
      i = format.indexOf('}', i) + 1;
    } else {
      text += ch;
      i += 1;
    }
  }
  flush();
  if (open) {
    throw new FormatStringError(
      `the section {#${open.name}} opened at position ${open.position} is not closed; end it with {/${open.name}}`,
      open.position,
    );
  }
  return { source: format, parts, placeholders, sections };
}

/** The field a section marker (`{#name}` or `{/name}`) names; a marker takes no default. */
function sectionName(marker: Placeholder, format: string, position: number): string {
  const name = marker.name.slice(1).trim();
  if (name === '') {
    throw new FormatStringError(
      `the section marker at position ${position} has no field name; write {#field}…{/field}`,
      position,
    );
  }
  if (marker.default !== undefined) {
    throw new FormatStringError(
      `the section marker at position ${position} has a default; a section takes none: write {${format[position + 1]}${name}}`,
      position,
    );
  }
  return name;
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

/** The distinct field names a format refers to, in placeholders or sections, in order of first use. */
export const placeholderNames = (parsed: ParsedFormat): string[] => [
  ...new Set(
    [...parsed.placeholders, ...parsed.sections].sort((a, b) => a.position - b.position).map((p) => p.name),
  ),
];

export type RenderedFormat = {
  text: string;
  /**
   * Placeholders without a default whose field had no value, each once, in order: they rendered as
   * nothing, which leaves a sentence cut short ("Bo lives in "). Inside a section that was dropped,
   * none counts. The caller decides what that means (an import refuses the row).
   */
  missing: string[];
};

/**
 * Fills a parsed format. `textOf` gives a field's text, or undefined when it has none; text that is
 * only whitespace counts as none too. A placeholder with no value renders its default (or nothing,
 * noted in `missing` when it has no default); a section renders only when its field has a value.
 */
export function renderFormat(
  parsed: ParsedFormat,
  textOf: (name: string) => string | undefined,
): RenderedFormat {
  const missing = new Set<string>();
  const valueOrNone = (name: string) => {
    const value = textOf(name);
    return value === undefined || value.trim() === '' ? undefined : value;
  };
  const inline = (part: InlinePart): string => {
    if (part.kind === 'text') return part.text;
    const value = valueOrNone(part.name);
    if (value !== undefined) return value;
    if (part.default === undefined) missing.add(part.name);
    return part.default ?? '';
  };
  let text = '';
  for (const part of parsed.parts) {
    if (part.kind !== 'section') text += inline(part);
    else if (valueOrNone(part.name) !== undefined) text += part.parts.map(inline).join('');
  }
  return { text, missing: [...missing] };
}

/** Writes `text` so that it parses back to exactly itself, e.g. to pre-fill a format from literal text. */
export function escapeFormatText(text: string): string {
  return text.replaceAll('{', '{{').replaceAll('}', '}}');
}
