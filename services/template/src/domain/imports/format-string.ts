/**
 * An import's format string turns each row into the text of one memory. The grammar is the shared one
 * (libs/contracts format-string.ts); here a bad format becomes an import error, and rows are rendered:
 * a placeholder whose column is absent from the row, or whose value is empty (null, undefined, or text
 * that is only whitespace), renders its default, or nothing when it has none (and the row says so, see
 * renderImportRow); a section `{#col}…{/col}` is dropped when its column is empty. Values are spelled by
 * stringifyValue (numbers as written, dates as ISO 8601, objects as JSON).
 */
import {
  FormatStringError,
  type ParsedFormat,
  parseFormat as parseSharedFormat,
  placeholderNames,
  type RenderedFormat,
  renderFormat,
} from '@tm/contracts';
import { ImportError } from './parsing/import-errors.js';
import { stringifyValue } from './parsing/stringify-value.js';

export { escapeFormatText, type FormatPart, type ParsedFormat, type Placeholder } from '@tm/contracts';

export function parseFormat(format: string): ParsedFormat {
  try {
    return parseSharedFormat(format);
  } catch (err) {
    if (!(err instanceof FormatStringError)) throw err;
    throw new ImportError('format_string', `Invalid format string: ${err.message}`, {
      position: err.position,
    });
  }
}

/**
 * The text of one memory for one row, and the placeholders without a default that found the row's
 * cell empty. Only the row's own keys count, never inherited ones (`{constructor}`).
 */
export function renderRow(parsed: ParsedFormat, row: Record<string, unknown>): RenderedFormat {
  return renderFormat(parsed, (name) => (Object.hasOwn(row, name) ? stringifyValue(row[name]) : undefined));
}

/**
 * Names of placeholders and sections that match no column of the file, each once, in order of first
 * use, for the cost estimate's warnings: such a placeholder renders its default (or nothing) on every
 * row, such a section is dropped on every row. Only placeholders with a default get this far (see
 * refuseUnmatchedPlaceholders).
 */
export function placeholdersWithoutColumn(parsed: ParsedFormat, columns: Iterable<string>): string[] {
  const known = new Set(columns);
  return placeholderNames(parsed).filter((name) => !known.has(name));
}

/** Columns named in a refusal: enough to spot a misspelling, bounded whatever the file's header holds. */
const NAMED_COLUMNS = { max: 50, maxChars: 64 };

/**
 * A placeholder without a default that matches no column of the file renders nothing on every row:
 * a typo (`{nmae}`) would import junk rows, so the format is refused (400 at `format`) naming the
 * placeholders and the columns there are. One with a default (`{region|}`) is a choice, kept as a
 * warning. Called once the columns are known: after the file is read, or from the hub's features.
 */
export function refuseUnmatchedPlaceholders(
  parsed: ParsedFormat,
  columns: Iterable<string>,
  source: 'the file' | 'the split' = 'the file',
): void {
  const known = new Set(columns);
  const unmatched = [
    ...new Set(
      parsed.placeholders.filter((p) => p.default === undefined && !known.has(p.name)).map((p) => p.name),
    ),
  ];
  if (unmatched.length === 0) return;
  const names = [...known]
    .slice(0, NAMED_COLUMNS.max)
    .map((c) => (c.length > NAMED_COLUMNS.maxChars ? `${c.slice(0, NAMED_COLUMNS.maxChars - 1)}…` : c));
  const more = known.size > names.length ? `, and ${known.size - names.length} more` : '';
  throw new ImportError(
    'format_string',
    `${unmatched.length === 1 ? 'Placeholder' : 'Placeholders'} ${unmatched.map((n) => `{${n}}`).join(', ')} ` +
      `${unmatched.length === 1 ? 'matches' : 'match'} no column of ${source} (columns: ` +
      `${names.length > 0 ? names.join(', ') : 'none'}${more}); name a column, or give a default: {${unmatched[0]}|…}`,
  );
}

/** The estimate's warning for a name placeholdersWithoutColumn returned. */
export function withoutColumnWarning(parsed: ParsedFormat, name: string): string {
  return parsed.placeholders.some((p) => p.name === name)
    ? `Placeholder {${name}} matches no column: it renders its default, or nothing`
    : `Section {#${name}} matches no column: it is left out of every row`;
}
