import { prepared, type SqlRunner } from '@tm/kit';
import type { RankedRow } from './ranked-row.js';

/** Cues of up to this many terms rank by levels: at most 20 subsets a level (6 choose 3). */
export const MAX_LEVEL_TERMS = 6;

/**
 * For each subset of m terms ($3, flattened), the newest $7 visible records holding all of them (ties
 * on event time included), each with its count of the cue's terms ($4), probed by primary key. OFFSET 0
 * keeps each probe a descent on all four key columns: without it the planner pulled the EXISTS up into
 * a scan of every posting at the record's event time (0.5 ms a record when an import's rows share one).
 */
const levelStatement = (m: number) =>
  prepared(
    `rank_level_${m}`,
    `SELECT c.memory_id::text AS memory_id, c.occurred_at,
            (SELECT count(*) FROM unnest($4::text[]) AS p(term)
              WHERE EXISTS (SELECT 1 FROM memory_term o
                             WHERE o.scope_key = memory_scope_key($1, $2) AND o.term = p.term
                               AND o.occurred_at = c.occurred_at AND o.memory_id = c.memory_id
                             OFFSET 0))::int AS matched
       FROM (SELECT DISTINCT f.memory_id, f.occurred_at
               FROM generate_series(0, cardinality($3::text[]) / ${m} - 1) AS s(i)
              CROSS JOIN LATERAL memory_newest_with_all_${m}(
                memory_scope_key($1, $2), ($3::text[])[s.i * ${m} + 1 : s.i * ${m} + ${m}],
                $5::timestamptz, $6::uuid[], $7) AS f) AS c`,
  );
const LEVEL = Array.from({ length: MAX_LEVEL_TERMS + 1 }, (_, m) => levelStatement(m));

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
 * Recall's ranking for short cues, level by level instead of counting every posting of every cue term.
 * At level m (from all n terms down to 1), the records matching exactly m terms each hold every term
 * of one m-subset of the cue, so the newest k records of each subset's lists walked side by side
 * (memory_newest_with_all_m, a merge that stops at k) contain the newest ones the level needs. Once k
 * records are found, lower levels cannot rank above them. A level that falls short has been seen in
 * full (a subset that stopped at k would have supplied enough), so the next level starts from a
 * complete set. Same order as counting: matched terms, newer event, event id. Cues whose lists are
 * short are counted before this is reached (count-short-lists.ts), which also finds `hidden`.
 */
export async function rankByLevels(
  run: SqlRunner,
  q: { tenantId: string; namespace: string; cueTerms: string[]; asOf: Date | null; limit: number },
  hidden: string[],
): Promise<RankedRow[]> {
  const found = new Map<string, Candidate>();
  for (let m = q.cueTerms.length; m >= 1 && found.size < q.limit; m--) {
    const statement = LEVEL[m];
    if (!statement) throw new Error(`Cannot rank ${q.cueTerms.length} terms by levels`);
    const rows = await run<Candidate>(statement, [
      q.tenantId,
      q.namespace,
      subsets(q.cueTerms, m).flat(),
      q.cueTerms,
      q.asOf,
      hidden,
      q.limit,
    ]);
    const level = rows
      .filter((row) => row.matched === m && !found.has(row.memory_id))
      .sort((a, b) => b.occurred_at.getTime() - a.occurred_at.getTime());
    const need = q.limit - found.size;
    const last = level[need - 1]?.occurred_at.getTime();
    for (const row of level) {
      if (last !== undefined && row.occurred_at.getTime() < last) break;
      found.set(row.memory_id, row);
    }
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

/** Every m-element subset of `terms`, in a fixed order. */
function subsets(terms: string[], m: number): string[][] {
  if (m === 0) return [[]];
  const out: string[][] = [];
  terms.forEach((term, i) => {
    for (const rest of subsets(terms.slice(i + 1), m - 1)) out.push([term, ...rest]);
  });
  return out;
}
