import { enqueueOutbox, type OutboxEntry } from '@tm/bus';
import { prepared, type SqlRunner } from '@tm/kit';
import { countIfShort } from './count-short-lists.js';
import { MAX_LEVEL_TERMS, rankByLevels } from './rank-by-levels.js';
import type { RankedRow } from './ranked-row.js';

export type { RankedRow } from './ranked-row.js';

/**
 * Where recall ranks: overlap between the cue's distinct terms and each record's, computed in
 * PostgreSQL from the postings table (memory_term, keyed scope, term, occurred_at, memory_id). All of a
 * record's postings carry its event time, so every posting list is ordered newest first.
 *
 * - full_match: records holding every cue term, newest first, k of them. The rarest cue term's list
 *   (counted up to DRIVER_PEEK) is walked newest first and each posting is probed in the other lists
 *   by primary key, stopping at k: a cue of common words costs a few hundred postings, not their lists.
 *   The walk covers at most the driver's FULL_MATCH_WALK newest postings: k full matches found there
 *   are the answer (any other is older); fewer, and the cue is counted instead.
 *   Cues whose lists hold fewer than WALK_ABOVE_POSTINGS postings in all skip the walk.
 * - hits: only when full_match found fewer than k: every record sharing a term, counted per record
 *   from one index descent per cue term (index-only).
 * - Both hide records after `asOf`, and superseded records unless `asOf` predates the superseding
 *   event (a partial index lists them).
 * - cut: the k-th best (matched, occurred_at); top: everything at or above it (k plus ties on both),
 *   the only records fetched, ordered fully: score, newer event time, then event id. Tenant and
 *   namespace are checked again on the records themselves.
 *
 * Every lookup is pinned to an index descent (LATERAL … OFFSET 0, correlated probes), so the plan does
 * not hinge on statistics: a namespace that is new, or grew since the last ANALYZE, looks empty to the
 * planner, which then chose whole-namespace scans and rescans.
 *
 * Since the plan is pinned, it does not depend on the values either, so the statement is prepared once
 * per connection: planning it took 0.7-0.8 ms, as long as running it on a 20k-record namespace (2.3-3.0
 * ms a call unprepared, 1.0-1.3 ms prepared; 400 calls per cue on one connection).
 */
const DRIVER_PEEK = 5_000;
/** How many of the driver's newest postings the full-match walk probes before it gives up and counts. */
const FULL_MATCH_WALK = 2_000;
/** Below this many postings in all (peeked), counting is cheaper than walking: the walk is skipped. */
const WALK_ABOVE_POSTINGS = 5_000;

const RANK_BY_OVERLAP = prepared(
  'rank_by_overlap',
  `
  WITH hidden AS MATERIALIZED (
    SELECT id FROM memory_record
     WHERE tenant_id = $1 AND namespace = $2 AND superseded_at IS NOT NULL
       AND ($4::timestamptz IS NULL OR superseded_at <= $4::timestamptz)
  ), peeks AS MATERIALIZED (
    SELECT q.term, (SELECT count(*) FROM (
                      SELECT 1 FROM memory_term c
                       WHERE c.scope_key = memory_scope_key($1, $2) AND c.term = q.term
                       LIMIT ${DRIVER_PEEK}) AS peek) AS postings
      FROM unnest($3::text[]) AS q(term)
  ), driver AS (
    SELECT term FROM peeks
     WHERE (SELECT sum(postings) FROM peeks) >= ${WALK_ABOVE_POSTINGS}
     ORDER BY postings LIMIT 1
  ), walk_from AS (
    -- The oldest event time the walk reaches: the driver's ${FULL_MATCH_WALK}th newest posting (all
    -- postings at that time included, so ties are never cut), or the whole list if shorter.
    SELECT coalesce((
      SELECT t.occurred_at FROM memory_term t
       WHERE t.scope_key = memory_scope_key($1, $2) AND t.term = d.term
         AND ($4::timestamptz IS NULL OR t.occurred_at <= $4::timestamptz)
       ORDER BY t.occurred_at DESC OFFSET ${FULL_MATCH_WALK - 1} LIMIT 1), '-infinity') AS at
      FROM driver d
  ), full_match AS MATERIALIZED (
    SELECT t.memory_id, cardinality($3::text[]) AS matched, t.occurred_at
      FROM driver d
     CROSS JOIN LATERAL (
       SELECT t.memory_id, t.occurred_at FROM memory_term t
        WHERE t.scope_key = memory_scope_key($1, $2) AND t.term = d.term
          AND ($4::timestamptz IS NULL OR t.occurred_at <= $4::timestamptz)
          AND t.occurred_at >= (SELECT at FROM walk_from)
          AND t.memory_id NOT IN (SELECT id FROM hidden)
          AND (SELECT count(*) FROM unnest($3::text[]) AS p(term)
                WHERE p.term <> d.term
                  AND EXISTS (SELECT 1 FROM memory_term o
                               WHERE o.scope_key = t.scope_key AND o.term = p.term
                                 AND o.occurred_at = t.occurred_at AND o.memory_id = t.memory_id
                              OFFSET 0)) = cardinality($3::text[]) - 1
        ORDER BY t.occurred_at DESC
        FETCH FIRST $5 ROWS WITH TIES) AS t
  ), enough AS (
    SELECT count(*) >= $5 AS yes FROM full_match
  ), hits AS MATERIALIZED (
    SELECT memory_id, matched, occurred_at FROM full_match WHERE (SELECT yes FROM enough)
    UNION ALL
    SELECT t.memory_id, count(*)::int AS matched, t.occurred_at
      FROM unnest($3::text[]) AS q(term)
     CROSS JOIN LATERAL (
       SELECT t.memory_id, t.occurred_at FROM memory_term t
        WHERE t.scope_key = memory_scope_key($1, $2) AND t.term = q.term
          AND ($4::timestamptz IS NULL OR t.occurred_at <= $4::timestamptz)
       OFFSET 0) AS t
     WHERE NOT (SELECT yes FROM enough)
       AND t.memory_id NOT IN (SELECT id FROM hidden)
     GROUP BY t.memory_id, t.occurred_at
  ), cut AS (
    SELECT matched, occurred_at FROM hits ORDER BY matched DESC, occurred_at DESC OFFSET $5 - 1 LIMIT 1
  ), top AS (
    SELECT h.* FROM hits h
     WHERE NOT EXISTS (SELECT 1 FROM cut)
        OR (h.matched, h.occurred_at) >= (SELECT matched, occurred_at FROM cut)
     ORDER BY h.matched DESC, h.occurred_at DESC
     FETCH FIRST $5 ROWS WITH TIES
  )
  SELECT r.id::text AS id, r.event_id, r.occurred_at, r.text, r.source, h.matched
    FROM top h
   CROSS JOIN LATERAL (
     SELECT * FROM memory_record r WHERE r.id = h.memory_id OFFSET 0) AS r
   WHERE r.tenant_id = $1 AND r.namespace = $2
   ORDER BY h.matched DESC, r.occurred_at DESC, r.event_id ASC
   LIMIT $5`,
);

/**
 * `cueTerms` must be distinct (tokenize's are): each shared term counts once. A namespace being
 * deleted ranks nothing. A cue whose lists are short is counted outright (count-short-lists.ts); past
 * that, cues of up to `levelsUpTo` terms rank by levels (rank-by-levels.ts), longer ones by the
 * statement above. All give the same order, and tests set `levelsUpTo` to run each on the same cues.
 * `recordWith` (the recall's usage) is in the outbox once this returns, and only if it does: written
 * by the counting statement, or after the ranking.
 */
export async function rankByOverlap(
  run: SqlRunner,
  q: { tenantId: string; namespace: string; cueTerms: string[]; asOf: Date | null; limit: number },
  options: { recordWith?: OutboxEntry; levelsUpTo?: number } = {},
): Promise<RankedRow[]> {
  const { recordWith, levelsUpTo = MAX_LEVEL_TERMS } = options;
  const byLevels = q.cueTerms.length <= levelsUpTo;
  const counted = await countIfShort(run, q, { recordWith, lengths: byLevels });
  if ('ranked' in counted) return counted.ranked;
  const rows = byLevels
    ? await rankByLevels(run, q, counted)
    : await run<RankedRow>(RANK_BY_OVERLAP, [q.tenantId, q.namespace, q.cueTerms, q.asOf, q.limit]);
  if (recordWith) await enqueueOutbox(run, recordWith.subject, recordWith.payload, recordWith.id);
  return rows;
}
