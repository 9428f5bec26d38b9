import type { OutboxEntry } from '@tm/bus';
import { prepared, type SqlRunner } from '@tm/kit';

/** Below this many postings in all, the cue's lists are scored outright: pruning would cost more. */
const SCORE_ALL_BELOW = 5_000;
/** How many of the heaviest list's newest postings the full-match walk probes before it gives up. */
const FULL_MATCH_WALK = 2_000;

/**
 * Recall on the stemmed index (deterministic-lexical-v2), in one statement: whether the namespace
 * still ranks by its old index (it is being re-indexed: nothing ranked, the caller goes there), whether
 * it is being deleted (nothing ranked), the records recall hides, the ranking (memory_rank, in
 * services/memory/sql/memory_rank.sql), the winners' records in recall's order, and the recall's usage
 * row, written with the ranking so that only a recall that ranked is billed. One row even when nothing
 * matched, for the survey's answers.
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
   ), ranked AS MATERIALIZED (
     SELECT k.* FROM survey s
      CROSS JOIN LATERAL memory_rank(memory_scope_key_v2($1, $2), $3::text[], $4::text[], $5::timestamptz,
                                     s.hidden, $6::int, $7::int, $8::int) AS k
      WHERE NOT s.deleting AND NOT s.legacy
   ), recorded AS (
     INSERT INTO outbox_message (id, subject, payload)
     SELECT $9::uuid, $10, $11::jsonb WHERE $9::uuid IS NOT NULL AND NOT (SELECT legacy FROM survey)
   )
   SELECT s.legacy, r.id::text AS id, r.event_id, r.occurred_at, r.text, r.source,
          k.score, k.tie, k.held, k.tie_held, k.weights
     FROM survey s
     LEFT JOIN (ranked k JOIN memory_record r ON r.id = k.memory_id AND r.tenant_id = $1 AND r.namespace = $2)
       ON true
    ORDER BY k.score DESC, k.tie DESC, r.occurred_at DESC, r.event_id ASC
    LIMIT $6`,
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
  id: string | null;
  event_id: string;
  occurred_at: Date;
  text: string;
  source: unknown;
  score: string;
  tie: number;
  held: boolean[];
  tie_held: boolean[];
  weights: string[];
}

/**
 * Rank a namespace's stemmed index against the cue's terms and function words. `recordWith`, the
 * recall's usage, is in the outbox once this returns, unless the namespace still ranks by its old
 * index (`legacy`), where the old ranking writes it. Tests set `scoreAllBelow` and `fullMatchWalk`
 * to run each way of ranking on the same cues.
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
  options: { recordWith?: OutboxEntry; scoreAllBelow?: number; fullMatchWalk?: number } = {},
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
    recordWith?.id ?? null,
    recordWith?.subject ?? null,
    recordWith ? JSON.stringify(recordWith.payload) : null,
  ]);
  if (rows[0]?.legacy) return { legacy: true };
  const ranked = rows.filter((row): row is Row & { id: string } => row.id !== null);
  return {
    legacy: false,
    weights: (ranked[0]?.weights ?? []).map(Number),
    rows: ranked.map((r) => ({
      id: r.id,
      event_id: r.event_id,
      occurred_at: r.occurred_at,
      text: r.text,
      source: r.source,
      score: Number(r.score),
      tie: r.tie,
      held: r.held,
      tieHeld: r.tie_held,
    })),
  };
}
