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
