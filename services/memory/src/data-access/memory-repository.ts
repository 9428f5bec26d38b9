import { Prisma } from './generated/client.js';
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
 * records sharing at least one term are scored. Ties break on newer event time, then event id.
 * Superseded records are hidden unless `asOf` predates the superseding event.
 */
export async function rankByOverlap(
  db: Db,
  q: { tenantId: string; namespace: string; cueTerms: string[]; asOf: Date | null; limit: number },
): Promise<RankedRow[]> {
  return db.$queryRaw<RankedRow[]>`
    SELECT r.id::text AS id, r.event_id, r.occurred_at, r.text, r.source,
           (${Prisma.join(
             q.cueTerms.map((term) => Prisma.sql`(r.terms @> ARRAY[${term}]::text[])::int`),
             ' + ',
           )}) AS matched
      FROM memory_record r
     WHERE r.tenant_id = ${q.tenantId}
       AND r.namespace = ${q.namespace}
       AND r.terms && ${q.cueTerms}::text[]
       AND (${q.asOf}::timestamptz IS NULL OR r.occurred_at <= ${q.asOf}::timestamptz)
       AND (r.superseded_at IS NULL OR (${q.asOf}::timestamptz IS NOT NULL AND r.superseded_at > ${q.asOf}::timestamptz))
     ORDER BY matched DESC, r.occurred_at DESC, r.event_id ASC
     LIMIT ${q.limit}`;
}

/** Remove one namespace's records and relations; the caller's transaction also clears idempotency. */
export async function deleteNamespaceData(db: Db, scope: { tenantId: string; namespace: string }) {
  const where = { tenantId: scope.tenantId, namespace: scope.namespace };
  const relations = await db.supersessionRelation.deleteMany({ where });
  const records = await db.memoryRecord.deleteMany({ where });
  return { records: records.count, relations: relations.count };
}
