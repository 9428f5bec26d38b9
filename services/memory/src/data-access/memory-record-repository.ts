import type { Db } from './prisma-client.js';

/** One record of a tenant by its id (the primary key); another tenant's record is never found. */
export async function findRecord(db: Db, tenantId: string, id: string) {
  return db.memoryRecord.findFirst({ where: { id, tenantId } });
}
