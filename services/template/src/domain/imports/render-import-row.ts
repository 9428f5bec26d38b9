import { LIMITS } from '@tm/contracts';
import { type ParsedFormat, renderRow } from './format-string.js';

export type RenderedImportRow =
  | { ok: true; text: string }
  | { ok: false; reason: 'empty_render' | 'text_too_long'; message: string }
  | { ok: false; reason: 'missing_value'; message: string; columns: string[] };

/**
 * One row's memory text, or why the row cannot become a memory. The estimate and the background
 * writer both use this, so a row the estimate counts as failing is the row the job reports.
 *
 * A placeholder without a default whose cell is empty would leave the sentence cut short ("Bo lives
 * in "): the row is not written, and its failure names the column, never a cell of the row. A
 * placeholder with a default (`{city|}` too) or a section (`{#city}…{/city}`) says empty is fine.
 */
export function renderImportRow(parsed: ParsedFormat, values: Record<string, unknown>): RenderedImportRow {
  const { text, missing } = renderRow(parsed, values);
  if (text.trim() === '') {
    return { ok: false, reason: 'empty_render', message: 'The row renders to empty text' };
  }
  if (missing.length > 0) {
    return { ok: false, reason: 'missing_value', message: missingValueMessage(missing), columns: missing };
  }
  if (text.length > LIMITS.textMaxChars) {
    return {
      ok: false,
      reason: 'text_too_long',
      message: `The row renders to ${text.length} characters; a memory holds at most ${LIMITS.textMaxChars}`,
    };
  }
  return { ok: true, text };
}

/** Names the columns (bounded: a format is at most 4,096 characters) and the two ways out. */
function missingValueMessage(columns: string[]): string {
  const named = columns.map((c) => `"${c}"`).join(', ');
  const first = columns[0] ?? '';
  return (
    `${columns.length === 1 ? 'Column' : 'Columns'} ${named} ${columns.length === 1 ? 'is' : 'are'} empty ` +
    `in this row and the format gives no default; fill the cell, or write {${first}|…} or ` +
    `{#${first}}…{/${first}} to allow it empty`
  );
}
