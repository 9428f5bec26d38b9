import { JSON_BOUNDS, jsonDepth } from '@tm/contracts';
import type { ImportRecord } from './import-row.js';
import { spellNul } from './refuse-nul-values.js';

/**
 * A row whose values nest objects and lists deeper than template data may (JSON_BOUNDS.maxDepth, 32)
 * becomes a row error, reported with the job's failures like any row the reader could not use; the
 * other rows go on (the spec's row-level failure). Unchecked, a JSON row nested 200 deep reached the
 * database and failed there (Prisma refuses JSON past about 128 levels): a 500 for the whole file.
 * Checked before the NUL check, which walks every value.
 */
export function refuseDeepValues(record: ImportRecord): ImportRecord {
  if (!record.ok) return record;
  for (const [column, value] of Object.entries(record.values)) {
    // the row itself is one level; its columns' values count from the next
    if (jsonDepth(value, JSON_BOUNDS.maxDepth - 1) > JSON_BOUNDS.maxDepth - 1) {
      return {
        ok: false,
        row: record.row,
        error: `Row ${record.row}, column '${spellNul(column)}' nests objects and lists deeper than ${JSON_BOUNDS.maxDepth} levels`,
      };
    }
  }
  return record;
}
