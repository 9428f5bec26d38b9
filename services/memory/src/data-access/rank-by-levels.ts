import { prepared, type SqlRunner } from '@tm/kit';
import type { LongLists } from './count-short-lists.js';
import type { RankedRow } from './ranked-row.js';

/** Cues of up to this many terms rank by levels: the walk functions merge at most this many lists. */
export const MAX_LEVEL_TERMS = 8;

/**
 * A probe by primary key costs about as much as walking this many postings of a merged list
 * (2.9 µs against 0.7 µs measured at 1M): the trade `walkWidth` weighs.
 */
const PROBE_COST = 4;

/** memory_walk_s: the newest $8 records (ties on event time) holding exactly $6 terms, walking $3. */
const walkStatement = (s: number) =>
  prepared(
    `rank_walk_${s}`,
    `SELECT w.memory_id::text AS memory_id, w.occurred_at, w.matched
       FROM memory_walk_${s}(memory_scope_key($1, $2), $3::text[], $4::text[], $5::timestamptz,
                             $6::uuid[], $7::int, $8::int, $9::int) AS w`,
  );
const WALK = Array.from({ length: MAX_LEVEL_TERMS + 1 }, (_, s) => walkStatement(s));

/** The winners' records in recall's order; the tie on event id is broken in SQL, by its collation. */
const RECORDS = prepared(
  'rank_records',
  `SELECT r.id::text AS id, r.event_id, r.occurred_at, r.text, r.source, f.matched
     FROM unnest($3::uuid[], $4::int[]) AS f(id, matched)
     JOIN memory_record r ON r.id = f.id
    WHERE r.tenant_id = $1 AND r.namespace = $2
    ORDER BY f.matched DESC, r.occurred_at DESC, r.event_id ASC
    LIMIT $5`,
);

interface Candidate {
  memory_id: string;
  occurred_at: Date;
  matched: number;
}

/**
 * Recall's ranking when the cue's lists are long, level by level (m = matched terms, from all n down)
 * without counting every posting. A record holding m of the n terms misses at most n - m of them, so it
 * is in at least one of any n - m + 1 lists, and in at least two of any n - m + 2: level m walks the
 * rarest of those lists newest first (memory_walk_s) and probes the others by key for the records that
 * hold enough of the walked ones. The walk stops at the k - found newest records of the level; a level
 * that falls short was walked whole, so every record above the next level is known when it starts.
 * Same order as counting: matched terms, newer event, event id. Common terms are probed, never walked
 * whole, unless the level needs them; a question whose best records hold 3 of 5 terms walks its rare
 * lists twice and its common ones only as far as the newest few matches.
 */
export async function rankByLevels(
  run: SqlRunner,
  q: { tenantId: string; namespace: string; cueTerms: string[]; asOf: Date | null; limit: number },
  lists: LongLists,
): Promise<RankedRow[]> {
  const n = q.cueTerms.length;
  const byRarity = q.cueTerms
    .map((term, i) => ({ term, length: lists.lengths[i] ?? Number.MAX_SAFE_INTEGER }))
    .sort((a, b) => a.length - b.length);
  const terms = byRarity.map((t) => t.term);
  const lengths = byRarity.map((t) => t.length);
  const found = new Map<string, Candidate>();
  for (let m = n; m >= 1 && found.size < q.limit; m--) {
    const s = walkWidth(lengths, m);
    const statement = WALK[s];
    if (!statement) throw new Error(`Cannot rank ${n} terms by levels`);
    const rows = await run<Candidate>(statement, [
      q.tenantId,
      q.namespace,
      terms.slice(0, s),
      terms.slice(s),
      q.asOf,
      lists.hidden,
      m - (n - s),
      m,
      q.limit - found.size,
    ]);
    for (const row of rows) found.set(row.memory_id, row);
  }
  if (found.size === 0) return [];
  const winners = [...found.values()];
  return run<RankedRow>(RECORDS, [
    q.tenantId,
    q.namespace,
    winners.map((w) => w.memory_id),
    winners.map((w) => w.matched),
    q.limit,
  ]);
}

/**
 * How many of the rarest lists (`lengths` ascending) level m walks: n - m + 1, every record walked then
 * probed, or n - m + 2, walking one more list so that only records in two walked lists are probed. A
 * record in one walked list needs every probed term and is dropped at the first it lacks (rarest
 * first), so it costs about one probe: one more list is cheaper unless it is longer than those probes.
 */
export function walkWidth(lengths: number[], m: number): number {
  const n = lengths.length;
  const least = n - m + 1;
  if (least >= n) return n;
  const walked = lengths.slice(0, least).reduce((a, b) => a + b, 0);
  const next = lengths[least] ?? 0;
  return walked * PROBE_COST < next ? least : least + 1;
}
