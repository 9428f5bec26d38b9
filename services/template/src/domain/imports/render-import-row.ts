import { LIMITS } from '@tm/contracts';
import { type ParsedFormat, renderRow } from './format-string.js';

export type RenderedImportRow =
  | { ok: true; text: string }
  | { ok: false; reason: 'empty_render' | 'text_too_long'; message: string };

/**
 * One row's memory text, or why the row cannot become a memory. The estimate and the background
 * writer both use this, so a row the estimate counts as failing is the row the job reports.
 */
export function renderImportRow(parsed: ParsedFormat, values: Record<string, unknown>): RenderedImportRow {
  const text = renderRow(parsed, values);
  if (text.trim() === '') {
    return { ok: false, reason: 'empty_render', message: 'The row renders to empty text' };
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
