import type { OutboxEntry } from '@tm/bus';
import { prepared, type SqlRunner } from '@tm/kit';
import {
  type ClassRanked,
  type ClassWalkOptions,
  MAX_CLASS_TERMS,
  MAX_CLASS_TIE_TERMS,
  rankByClasses,
} from './rank-by-classes.js';

/** Below this many postings in all, the cue's lists are scored outright: pruning would cost more. */
const SCORE_ALL_BELOW = 5_000;
/** How many of the heaviest list's newest postings memory_rank's full-match walk probes. */
const FULL_MATCH_WALK = 2_000;
/**
 * The first statement of a recall on the stemmed index (deterministic-lexical-v2), and for most
 * recalls the only one: whether the namespace still ranks by its old index (it is being re-indexed:
 * nothing ranked, the caller goes there), whether it is being deleted (nothing ranked), the records
 * recall hides, the cue's statistics (memory_rank_stats), and, where the cue's lists are short (all
 * scored) or its terms more than ranking by classes takes (MaxScore), the ranking itself (memory_rank,
 * in services/memory/sql/memory_rank.sql), the winners' records in recall's order and the recall's
 * usage row, written with the ranking so that only a recall that ranked is billed. One row even when
 * nothing matched. Otherwise it hands back the statistics and hidden records, and rankByClasses ranks:
 * with its merged reads it beat MaxScore at 1M (natural questions p95 86-110 ms against 107-144, one
 * client, the 2-core machine half loaded), where reading one list at a time had lost to it.
 */
const RANK_WEIGHTED = prepared(
  'rank_weighted',
  `WITH survey AS MATERIALIZED (
     SELECT (SELECT coalesce(array_agg(id), '{}') FROM memory_record
              WHERE tenant_id = $1 AND namespace = $2 AND superseded_at IS NOT NULL
                AND ($5::timestamptz IS NULL OR superseded_at <= $5::timestamptz)) AS hidden,
            EXISTS (SELECT 1 FROM namespace_deletion
                     WHERE tenant_id = $1 AND namespace = $2 AND status = 'in_progress') AS deleting,
            EXISTS (SELECT 1 FROM memory_reindex
                     WHERE tenant_id = $1 AND namespace = $2 AND status IN ('pending', 'indexing')) AS legacy
   ), stats AS MATERIALIZED (
     SELECT st.* FROM survey s CROSS JOIN LATERAL memory_rank_stats(memory_scope_key_v2($1, $2), $3::text[]) AS st
      WHERE NOT s.deleting AND NOT s.legacy
   ), here AS MATERIALIZED (
     SELECT s.deleting OR NOT EXISTS (SELECT 1 FROM stats) OR cardinality($3::text[]) > $9
            OR cardinality($4::text[]) > ${MAX_CLASS_TIE_TERMS}
            OR (SELECT sum(x) FROM stats, unnest(stats.lengths) AS x) < $7 AS yes
       FROM survey s
   ), ranked AS MATERIALIZED (
     SELECT k.* FROM survey s, stats st
      CROSS JOIN LATERAL memory_rank(memory_scope_key_v2($1, $2), $3::text[], $4::text[], $5::timestamptz,
                                     s.hidden, $6::int, st.lengths, st.weights, $7::int, $8::int) AS k
      WHERE (SELECT yes FROM here)
   ), recorded AS (
     INSERT INTO outbox_message (id, subject, payload)
     SELECT $10::uuid, $11, $12::jsonb
      WHERE $10::uuid IS NOT NULL AND NOT (SELECT legacy FROM survey) AND (SELECT yes FROM here)
   )
   SELECT s.legacy, h.yes AS ranked_here, CASE WHEN NOT h.yes THEN s.hidden END AS hidden,
          st.lengths, st.weights, r.id::text AS id, r.event_id, r.occurred_at, r.text, r.source,
          k.score, k.tie, k.held, k.tie_held
     FROM survey s CROSS JOIN here h
     LEFT JOIN stats st ON true
     LEFT JOIN (ranked k CROSS JOIN LATERAL (
                  SELECT * FROM (SELECT * FROM memory_record r WHERE r.id = k.memory_id OFFSET 0) AS r
                   WHERE r.tenant_id = $1 AND r.namespace = $2) AS r)
       ON true
    ORDER BY k.score DESC, k.tie DESC, r.occurred_at DESC, r.event_id ASC
    LIMIT $6`,
);

/**
 * The class walk's winners' records in recall's order, and the recall's usage row with them. Here and
 * above, a record is looked up by its id alone behind OFFSET 0, its tenant and namespace checked after:
 * with the scope inside, a plan made while a freshly filled namespace's statistics were stale walked
 * the (tenant, namespace, event id) index instead, a million records a winner (3.3 s a recall).
 */
const RECORDS = prepared(
  'rank_weighted_records',
  `WITH recorded AS (
     INSERT INTO outbox_message (id, subject, payload)
     SELECT $7::uuid, $8, $9::jsonb WHERE $7::uuid IS NOT NULL
   )
   SELECT r.id::text AS id, r.event_id, r.occurred_at, r.text, r.source, f.score, t.tie, f.mask, f.tie_mask
     FROM unnest($3::uuid[], $4::bigint[], $5::int[], $6::int[]) AS f(id, score, mask, tie_mask)
    CROSS JOIN LATERAL (SELECT * FROM (SELECT * FROM memory_record r WHERE r.id = f.id OFFSET 0) AS r
                         WHERE r.tenant_id = $1 AND r.namespace = $2) AS r
    CROSS JOIN LATERAL (SELECT bit_count(f.tie_mask::bit(32))::int AS tie) AS t
    ORDER BY f.score DESC, t.tie DESC, r.occurred_at DESC, r.event_id ASC
    LIMIT $10`,
);

/** One recalled record with its weighted score (millionths), function words held, and per-term holds. */
export interface WeightedRow {
  id: string;
  event_id: string;
  occurred_at: Date;
  text: string;
  source: unknown;
  /** Summed weight of the cue terms the record holds. */
  score: number;
  /** How many of the cue's function words it holds: the tie-break before recency. */
  tie: number;
  /** Per cue term (in the cue's order), whether the record holds it. */
  held: boolean[];
  /** Per function word, whether the record holds it. */
  tieHeld: boolean[];
}

export type WeightedRanking =
  | { legacy: true }
  | {
      legacy: false;
      rows: WeightedRow[] /** Each cue term's weight, in the cue's order. */;
      weights: number[];
    };

interface Row {
  legacy: boolean;
  ranked_here: boolean;
  hidden: string[] | null;
  lengths: string[] | null;
  weights: string[] | null;
  id: string | null;
  event_id: string;
  occurred_at: Date;
  text: string;
  source: unknown;
  score: string;
  tie: number;
  held: boolean[];
  tie_held: boolean[];
}

export interface RankOptions {
  recordWith?: OutboxEntry;
  /** Below this many postings in all, every record is scored (tests lower it to run the others). */
  scoreAllBelow?: number;
  fullMatchWalk?: number;
  /** Cues of up to this many terms rank by classes; longer ones by memory_rank's MaxScore. */
  classesUpTo?: number;
  /** How the class walk reads (tests shrink its first read and turn its merged reads off). */
  classWalk?: ClassWalkOptions;
}

/**
 * Rank a namespace's stemmed index against the cue's terms and function words. `recordWith`, the
 * recall's usage, is in the outbox once this returns, unless the namespace still ranks by its old
 * index (`legacy`), where the old ranking writes it.
 */
export async function rankWeighted(
  run: SqlRunner,
  q: {
    tenantId: string;
    namespace: string;
    terms: string[];
    tieTerms: string[];
    asOf: Date | null;
    limit: number;
  },
  options: RankOptions = {},
): Promise<WeightedRanking> {
  const { recordWith, scoreAllBelow = SCORE_ALL_BELOW, fullMatchWalk = FULL_MATCH_WALK } = options;
  const rows = await run<Row>(RANK_WEIGHTED, [
    q.tenantId,
    q.namespace,
    q.terms,
    q.tieTerms,
    q.asOf,
    q.limit,
    scoreAllBelow,
    fullMatchWalk,
    options.classesUpTo ?? MAX_CLASS_TERMS,
    recordWith?.id ?? null,
    recordWith?.subject ?? null,
    recordWith ? JSON.stringify(recordWith.payload) : null,
  ]);
  const [first] = rows;
  if (!first || first.legacy) return { legacy: true };
  const weights = (first.weights ?? []).map(Number);
  if (first.ranked_here) {
    return {
      legacy: false,
      weights,
      rows: rows
        .filter((row): row is Row & { id: string } => row.id !== null)
        .map((r) => ({
          ...record(r),
          score: Number(r.score),
          tie: r.tie,
          held: r.held,
          tieHeld: r.tie_held,
        })),
    };
  }
  const winners = await rankByClasses(
    run,
    { ...q, lengths: (first.lengths ?? []).map(Number), weights, hidden: first.hidden ?? [] },
    options.classWalk,
  );
  return { legacy: false, weights, rows: await fetchRecords(run, q, winners, recordWith) };
}

async function fetchRecords(
  run: SqlRunner,
  q: { tenantId: string; namespace: string; terms: string[]; tieTerms: string[]; limit: number },
  winners: ClassRanked[],
  recordWith: OutboxEntry | undefined,
): Promise<WeightedRow[]> {
  const rows = await run<Row & { id: string; mask: number; tie_mask: number }>(RECORDS, [
    q.tenantId,
    q.namespace,
    winners.map((w) => w.id),
    winners.map((w) => w.score),
    winners.map((w) => w.mask),
    winners.map((w) => w.tieMask),
    recordWith?.id ?? null,
    recordWith?.subject ?? null,
    recordWith ? JSON.stringify(recordWith.payload) : null,
    q.limit,
  ]);
  return rows.map((r) => ({
    ...record(r),
    score: Number(r.score),
    tie: r.tie,
    held: q.terms.map((_, i) => (r.mask & (1 << i)) !== 0),
    tieHeld: q.tieTerms.map((_, i) => (r.tie_mask & (1 << i)) !== 0),
  }));
}

const record = (r: Row & { id: string }) => ({
  id: r.id,
  event_id: r.event_id,
  occurred_at: r.occurred_at,
  text: r.text,
  source: r.source,
});
