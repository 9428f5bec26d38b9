import { prepared, type SqlRunner } from '@tm/kit';
import type { OutboxEntry } from './outbox-repository.js';
import type { RankedRow } from './ranked-row.js';

/** Below this many postings in all, the cue's lists are simply counted: the shortcuts would cost more. */
const COUNT_BELOW = 5_000;

/**
 * The first and, for most cues, only statement of a recall: it counts the cue's postings (up to
 * COUNT_BELOW) and, when they are fewer, ranks by counting every record sharing a term and fetches
 * the top $5 (ties on score and time kept) in recall's order. When the lists are longer it ranks
 * nothing and hands back the superseded records recall hides, for the shortcuts that follow. One
 * round trip instead of a survey and a count: under load the round trips cost more than the counting.
 * The survey is one row, so a cue with no match still answers one (with no record). `recordWith`, an
 * outbox message (the recall's usage), is written by the same statement when it ranks, so a recall is
 * one statement and its usage is recorded exactly when its ranking succeeded.
 */
const COUNT_IF_SHORT = prepared(
  'rank_count_if_short',
  `WITH survey AS MATERIALIZED (
     SELECT (SELECT coalesce(array_agg(id), '{}') FROM memory_record
              WHERE tenant_id = $1 AND namespace = $2 AND superseded_at IS NOT NULL
                AND ($4::timestamptz IS NULL OR superseded_at <= $4::timestamptz)) AS hidden,
            (SELECT count(*) FROM (
               SELECT 1 FROM memory_term t
                WHERE t.scope_key = memory_scope_key($1, $2) AND t.term = ANY($3::text[])
                LIMIT ${COUNT_BELOW}) AS p)::int AS postings
   ), recorded AS (
     INSERT INTO outbox_message (id, subject, payload)
     SELECT $6::uuid, $7, $8::jsonb WHERE $6::uuid IS NOT NULL AND (SELECT postings FROM survey) < ${COUNT_BELOW}
   ), top AS (
     SELECT r.id::text AS id, r.event_id, r.occurred_at, r.text, r.source, h.matched
       FROM (SELECT t.memory_id, count(*)::int AS matched, t.occurred_at FROM memory_term t
              WHERE (SELECT postings FROM survey) < ${COUNT_BELOW}
                AND t.scope_key = memory_scope_key($1, $2) AND t.term = ANY($3::text[])
                AND ($4::timestamptz IS NULL OR t.occurred_at <= $4::timestamptz)
                AND t.memory_id <> ALL ((SELECT hidden FROM survey)::uuid[])
              GROUP BY t.memory_id, t.occurred_at
              ORDER BY matched DESC, t.occurred_at DESC
              FETCH FIRST $5 ROWS WITH TIES) AS h
       JOIN memory_record r ON r.id = h.memory_id
      WHERE r.tenant_id = $1 AND r.namespace = $2
      ORDER BY h.matched DESC, r.occurred_at DESC, r.event_id ASC
      LIMIT $5
   )
   SELECT CASE WHEN s.postings >= ${COUNT_BELOW} THEN s.hidden END AS hidden, t.*
     FROM survey s LEFT JOIN top t ON true
    ORDER BY t.matched DESC, t.occurred_at DESC, t.event_id ASC`,
);

/** A ranked record, or (id null) only the survey: no record matched, or the lists were long. */
interface Row extends Omit<RankedRow, 'id'> {
  id: string | null;
  hidden: string[] | null;
}

/** The ranking (and `recordWith` written) when the cue's lists are short; else the superseded records to hide. */
export async function countIfShort(
  run: SqlRunner,
  q: { tenantId: string; namespace: string; cueTerms: string[]; asOf: Date | null; limit: number },
  recordWith?: OutboxEntry,
): Promise<{ ranked: RankedRow[] } | { hidden: string[] }> {
  const rows = await run<Row>(COUNT_IF_SHORT, [
    q.tenantId,
    q.namespace,
    q.cueTerms,
    q.asOf,
    q.limit,
    recordWith?.id ?? null,
    recordWith?.subject ?? null,
    recordWith ? JSON.stringify(recordWith.payload) : null,
  ]);
  const hidden = rows[0]?.hidden;
  if (hidden) return { hidden };
  return {
    ranked: rows.filter((row): row is Row & RankedRow => row.id !== null).map(({ hidden: _, ...row }) => row),
  };
}
