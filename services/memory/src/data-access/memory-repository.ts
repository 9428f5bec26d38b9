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
 * Where recall ranks: overlap between the cue's terms and each record's terms, computed in
 * PostgreSQL. `terms && cue` is answered by the (tenant_id, namespace, terms) GIN index, so only
 * records sharing at least one term are scored, each by one containment test per cue term.
 * Ties break on newer event time, then event id. Superseded records are hidden unless `asOf`
 * predates the superseding event.
 */
export async function rankByOverlap(
  run: SqlRunner,
  q: { tenantId: string; namespace: string; cueTerms: string[]; asOf: Date | null; limit: number },
): Promise<RankedRow[]> {
  const fixed = [q.tenantId, q.namespace, q.cueTerms, q.asOf, q.limit];
  const matched = q.cueTerms
    .map((_, i) => `(r.terms @> ARRAY[$${fixed.length + 1 + i}::text])::int`)
    .join(' + ');
  return run<RankedRow>(
    `SELECT r.id::text AS id, r.event_id, r.occurred_at, r.text, r.source, (${matched}) AS matched
       FROM memory_record r
      WHERE r.tenant_id = $1
        AND r.namespace = $2
        AND r.terms && $3::text[]
        AND ($4::timestamptz IS NULL OR r.occurred_at <= $4::timestamptz)
        AND (r.superseded_at IS NULL OR ($4::timestamptz IS NOT NULL AND r.superseded_at > $4::timestamptz))
      ORDER BY matched DESC, r.occurred_at DESC, r.event_id ASC
      LIMIT $5`,
    [...fixed, ...q.cueTerms],
  );
}

/** Remove one namespace's records and relations; the caller's transaction also clears idempotency. */
export async function deleteNamespaceData(db: Db, scope: { tenantId: string; namespace: string }) {
  const where = { tenantId: scope.tenantId, namespace: scope.namespace };
  const relations = await db.supersessionRelation.deleteMany({ where });
  const records = await db.memoryRecord.deleteMany({ where });
  return { records: records.count, relations: relations.count };
}
