import type { OutboxEntry } from '@tm/bus';
import { prepared, type SqlRunner } from '@tm/kit';
import type { RankedRow } from './ranked-row.js';

/** Below this many postings in all, the cue's lists are simply counted: the shortcuts would cost more. */
const COUNT_BELOW = 5_000;
/** Postings read per term to estimate a long list's length (see LIST_LENGTHS). */
const LENGTH_PEEK = 500;

/**
 * The first and, for most cues, only statement of a recall: it counts the cue's postings (up to
 * COUNT_BELOW) and, when they are fewer, ranks by counting every record sharing a term and fetches
 * the top $5 (ties on score and time kept) in recall's order. When the lists are longer it ranks
 * nothing and hands back the superseded records recall hides, for the shortcuts that follow. One
 * round trip instead of a survey and a count: under load the round trips cost more than the counting.
 * The survey is one row, so a cue with no match still answers one (with no record). A namespace being
 * deleted ranks nothing, whatever its lists, from the moment its deletion starts (its records go in
 * batches): asked here, not in a statement of its own. `recordWith`, an outbox message (the recall's
 * usage), is written by the same statement when it ranks, so a recall is one statement and its usage
 * is recorded exactly when its ranking succeeded.
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
                LIMIT ${COUNT_BELOW}) AS p)::int AS postings,
            EXISTS (SELECT 1 FROM namespace_deletion
                     WHERE tenant_id = $1 AND namespace = $2 AND status = 'in_progress') AS deleting
   ), recorded AS (
     INSERT INTO outbox_message (id, subject, payload)
     SELECT $6::uuid, $7, $8::jsonb
      WHERE $6::uuid IS NOT NULL AND (SELECT postings < ${COUNT_BELOW} OR deleting FROM survey)
   ), top AS (
     SELECT r.id::text AS id, r.event_id, r.occurred_at, r.text, r.source, h.matched
       FROM (SELECT t.memory_id, count(*)::int AS matched, t.occurred_at FROM memory_term t
              WHERE (SELECT postings < ${COUNT_BELOW} AND NOT deleting FROM survey)
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
   SELECT CASE WHEN s.postings >= ${COUNT_BELOW} AND NOT s.deleting THEN s.hidden END AS hidden, t.*
     FROM survey s LEFT JOIN top t ON true
    ORDER BY t.matched DESC, t.occurred_at DESC, t.event_id ASC`,
);

/**
 * Each term's list length, for ranking by levels (it orders terms by them), asked only when the lists
 * are long: in the statement above, it made that statement's plan dearer and PostgreSQL re-planned it
 * on every call, 0.25 ms more for every short cue. A list of LENGTH_PEEK postings or more is estimated
 * from its event times rather than counted: LENGTH_PEEK over the share of the list's time span its
 * newest LENGTH_PEEK cover (two index descents and a short walk; counting a common word read 60k
 * postings at 1M). The levels only order terms by it, so a poor estimate costs time, never correctness.
 */
const LIST_LENGTHS = prepared(
  'rank_list_lengths',
  `SELECT array_agg(e.postings ORDER BY q.i)::float8[] AS lengths
     FROM unnest($3::text[]) WITH ORDINALITY AS q(term, i)
    CROSS JOIN LATERAL (
      SELECT CASE WHEN w.n < ${LENGTH_PEEK} THEN w.n
                  ELSE least(1e9, ${LENGTH_PEEK} * coalesce(extract(epoch FROM w.newest - o.oldest)
                                  / nullif(extract(epoch FROM w.newest - w.nth), 0), 1e9))::bigint
             END AS postings
        FROM (SELECT count(*) AS n, max(p.occurred_at) AS newest, min(p.occurred_at) AS nth FROM (
                SELECT t.occurred_at FROM memory_term t
                 WHERE t.scope_key = memory_scope_key($1, $2) AND t.term = q.term
                 ORDER BY t.occurred_at DESC LIMIT ${LENGTH_PEEK}) AS p) AS w
       CROSS JOIN LATERAL (
         SELECT t.occurred_at AS oldest FROM memory_term t
          WHERE t.scope_key = memory_scope_key($1, $2) AND t.term = q.term
          ORDER BY t.occurred_at LIMIT 1 OFFSET 0) AS o) AS e`,
);

/** A ranked record, or (id null) only the survey: no record matched, or the lists were long. */
interface Row extends Omit<RankedRow, 'id'> {
  id: string | null;
  hidden: string[] | null;
}

/** What the shortcuts need when the lists are long: records to hide, each cue term's list length. */
export interface LongLists {
  hidden: string[];
  /** Postings per term of `cueTerms`, in its order, estimated past LENGTH_PEEK; empty unless asked for. */
  lengths: number[];
}

/**
 * The ranking (and `recordWith` written) when the cue's lists are short; else what the shortcuts need,
 * the list lengths only with `lengths` (ranking by levels orders terms by them; the counting statement
 * does not need them).
 */
export async function countIfShort(
  run: SqlRunner,
  q: { tenantId: string; namespace: string; cueTerms: string[]; asOf: Date | null; limit: number },
  options: { recordWith?: OutboxEntry | undefined; lengths: boolean },
): Promise<{ ranked: RankedRow[] } | LongLists> {
  const { recordWith } = options;
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
  if (hidden) {
    if (!options.lengths) return { hidden, lengths: [] };
    const [row] = await run<{ lengths: number[] }>(LIST_LENGTHS, [q.tenantId, q.namespace, q.cueTerms]);
    return { hidden, lengths: row?.lengths ?? [] };
  }
  return {
    ranked: rows.filter((row): row is Row & RankedRow => row.id !== null).map(({ hidden: _, ...row }) => row),
  };
}
