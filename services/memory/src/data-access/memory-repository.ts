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
 * PostgreSQL from the postings table (memory_term). The cue's posting lists are read index-only and
 * counted per record, so a namespace's records are never scanned and only the winners are fetched.
 *
 * - hits: records sharing a term with the cue, with how many they share; superseded records are
 *   hidden unless `asOf` predates the superseding event (a partial index lists them).
 * - cut: the k-th best (matched, occurred_at); everything at or above it may still tie on both.
 * - top: those candidates (k plus any ties), fetched and ordered fully: score, newer event time,
 *   then event id. The tenant and namespace are checked again on the records themselves.
 */
const RANK_BY_OVERLAP = `
  WITH hits AS MATERIALIZED (
    SELECT t.memory_id, count(*)::int AS matched, t.occurred_at
      FROM memory_term t
     WHERE t.scope_key = memory_scope_key($1, $2)
       AND t.term = ANY($3::text[])
       AND ($4::timestamptz IS NULL OR t.occurred_at <= $4::timestamptz)
       AND t.memory_id NOT IN (
             SELECT id FROM memory_record
              WHERE tenant_id = $1 AND namespace = $2 AND superseded_at IS NOT NULL
                AND ($4::timestamptz IS NULL OR superseded_at <= $4::timestamptz))
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

/** `cueTerms` must be distinct (tokenize's are): each shared term counts once. */
export async function rankByOverlap(
  run: SqlRunner,
  q: { tenantId: string; namespace: string; cueTerms: string[]; asOf: Date | null; limit: number },
): Promise<RankedRow[]> {
  return run<RankedRow>(RANK_BY_OVERLAP, [q.tenantId, q.namespace, q.cueTerms, q.asOf, q.limit]);
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
