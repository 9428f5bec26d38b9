import type { Prisma } from './generated/client.js';
import type { Db } from './prisma-client.js';

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
