import { nulCharacterIssues } from '@tm/contracts';
import type { ImportRecord } from './import-row.js';

const NUL = '\u0000';

/**
 * A row whose keys or text hold NUL (U+0000) becomes a row error, reported with the job's failures:
 * text fields refuse NUL everywhere else too (400 at the field), PostgreSQL cannot store it in text
 * or JSON, and dropping it silently would change what the person uploaded. The other rows go on.
 */
export function refuseNulValues(record: ImportRecord): ImportRecord {
  if (!record.ok) {
    // a parser's message may quote the bad bytes; it is stored, so the NUL is spelled out
    return record.error.includes(NUL) ? { ...record, error: spellNul(record.error) } : record;
  }
  for (const [column, value] of Object.entries(record.values)) {
    if (column.includes(NUL) || nulCharacterIssues(value).length > 0) {
      return {
        ok: false,
        row: record.row,
        error: `Row ${record.row} has a NUL character (U+0000) in column '${spellNul(column)}'; text may not contain NUL`,
      };
    }
  }
  return record;
}

export function spellNul(text: string): string {
  return text.replaceAll(NUL, '\\u0000');
}
