import type { Db } from './prisma-client.js';

/**
 * Remove one namespace of a tenant: its records, their recall postings, its supersession relations and
 * its idempotency entries. Run it in a transaction, so the namespace goes whole or not at all.
 */
export async function deleteNamespaceData(db: Db, scope: { tenantId: string; namespace: string }) {
  const where = { tenantId: scope.tenantId, namespace: scope.namespace };
  const relations = await db.supersessionRelation.deleteMany({ where });
  await db.$executeRaw`DELETE FROM memory_term WHERE scope_key = memory_scope_key(${scope.tenantId}, ${scope.namespace})`;
  const records = await db.memoryRecord.deleteMany({ where });
  const idempotency = await db.idempotencyEntry.deleteMany({ where });
  return { records: records.count, relations: relations.count, idempotency: idempotency.count };
}
