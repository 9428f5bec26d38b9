import type { SqlRunner } from '@tm/kit';
import type { Prisma } from './generated/client.js';
import type { Db } from './prisma-client.js';

export interface NewRecord {
  id: string;
  tenantId: string;
  userId: string;
  namespace: string;
  eventId: string;
  occurredAt: Date;
  text: string;
  terms: string[];
  source: Prisma.InputJsonValue | null;
  requestId: string;
}

/**
 * Mark the named events of this namespace superseded as of `at` (the superseding event's time);
 * a record superseded twice keeps the earliest time. Returns the targets that were found.
 */
export async function markSuperseded(
  db: Db,
  scope: { tenantId: string; namespace: string },
  eventIds: string[],
  at: Date,
) {
  if (eventIds.length === 0) return [];
  return db.$queryRaw<Array<{ id: string; event_id: string }>>`
    UPDATE memory_record
       SET superseded_at = LEAST(COALESCE(superseded_at, ${at}), ${at})
     WHERE tenant_id = ${scope.tenantId} AND namespace = ${scope.namespace} AND event_id = ANY(${eventIds}::text[])
     RETURNING id::text AS id, event_id`;
}

export async function insertRelations(db: Db, relations: Prisma.SupersessionRelationCreateManyInput[]) {
  if (relations.length) await db.supersessionRelation.createMany({ data: relations });
}

export interface RankedRow {
  id: string;
  event_id: string;
  occurred_at: Date;
  text: string;
  source: unknown;
  matched: number;
}

/**
 * Where recall ranks: overlap between the cue's distinct terms and each record's, computed in
 * PostgreSQL from the postings table (memory_term, keyed scope, term, occurred_at, memory_id). All of a
 * record's postings carry its event time, so every posting list is ordered newest first.
 *
 * - full: records holding every cue term, newest first. PostgreSQL answers it by merging the cue's
 *   posting lists backwards in event-time order and stops after k, so a cue of common words costs a
 *   few hundred postings instead of their whole lists. Tried only for short cues (a join per term).
 * - hits: only when `full` found fewer than k: every record sharing a term, counted per record by an
 *   index-only scan of the cue's posting lists.
 * - Both hide superseded records unless `asOf` predates the superseding event (a partial index lists
 *   them) and records after `asOf`.
 * - cut: the k-th best (matched, occurred_at); top: everything at or above it (k plus ties on both),
 *   the only records fetched, ordered fully: score, newer event time, then event id. Tenant and
 *   namespace are checked again on the records themselves.
 */
export const FULL_MATCH_MAX_TERMS = 8;

const postingsOf = (alias: string) => `
      ${alias}.scope_key = memory_scope_key($1, $2)
       AND ($4::timestamptz IS NULL OR ${alias}.occurred_at <= $4::timestamptz)
       AND ${alias}.memory_id NOT IN (
             SELECT id FROM memory_record
              WHERE tenant_id = $1 AND namespace = $2 AND superseded_at IS NOT NULL
                AND ($4::timestamptz IS NULL OR superseded_at <= $4::timestamptz))`;

/** Parameters: $1 tenant, $2 namespace, $3 cue terms, $4 as_of, $5 k, then each cue term alone. */
function rankStatement(termCount: number): string {
  const fullMatch = termCount <= FULL_MATCH_MAX_TERMS;
  const holdsTerm = (i: number) => `
       AND EXISTS (SELECT 1 FROM memory_term o
                    WHERE o.scope_key = t.scope_key AND o.term = $${6 + i}
                      AND o.occurred_at = t.occurred_at AND o.memory_id = t.memory_id)`;
  const full = fullMatch
    ? `
    SELECT t.memory_id, ${termCount} AS matched, t.occurred_at
      FROM memory_term t
     WHERE t.term = $6 AND ${postingsOf('t')}${Array.from({ length: termCount - 1 }, (_, i) => holdsTerm(i + 1)).join('')}
     ORDER BY t.occurred_at DESC
     FETCH FIRST $5 ROWS WITH TIES`
    : 'SELECT NULL::uuid AS memory_id, 0 AS matched, NULL::timestamptz AS occurred_at WHERE false';
  return `
  WITH full_match AS MATERIALIZED (${full}
  ), enough AS (
    SELECT count(*) >= $5 AS yes FROM full_match
  ), hits AS MATERIALIZED (
    SELECT memory_id, matched, occurred_at FROM full_match WHERE (SELECT yes FROM enough)
    UNION ALL
    SELECT t.memory_id, count(*)::int AS matched, t.occurred_at
      FROM memory_term t
     WHERE NOT (SELECT yes FROM enough)
       AND t.term = ANY($3::text[]) AND ${postingsOf('t')}
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
    FROM top h JOIN memory_record r ON r.id = h.memory_id
   WHERE r.tenant_id = $1 AND r.namespace = $2
   ORDER BY h.matched DESC, r.occurred_at DESC, r.event_id ASC
   LIMIT $5`;
}

/** `cueTerms` must be distinct (tokenize's are): each shared term counts once. */
export async function rankByOverlap(
  run: SqlRunner,
  q: { tenantId: string; namespace: string; cueTerms: string[]; asOf: Date | null; limit: number },
): Promise<RankedRow[]> {
  const n = q.cueTerms.length;
  const single = n <= FULL_MATCH_MAX_TERMS ? q.cueTerms : [];
  return run<RankedRow>(rankStatement(n), [q.tenantId, q.namespace, q.cueTerms, q.asOf, q.limit, ...single]);
}

/**
 * Remove one namespace's records, postings and relations; the caller's transaction also clears
 * idempotency.
 */
export async function deleteNamespaceData(db: Db, scope: { tenantId: string; namespace: string }) {
  const where = { tenantId: scope.tenantId, namespace: scope.namespace };
  const relations = await db.supersessionRelation.deleteMany({ where });
  await db.$executeRaw`DELETE FROM memory_term WHERE scope_key = memory_scope_key(${scope.tenantId}, ${scope.namespace})`;
  const records = await db.memoryRecord.deleteMany({ where });
  return { records: records.count, relations: relations.count };
}
