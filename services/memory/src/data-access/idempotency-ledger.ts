import type { Prisma } from './generated/client.js';
import type { Db } from './prisma-client.js';

export function findEntry(db: Db, tenantId: string, key: string) {
  return db.idempotencyEntry.findUnique({ where: { tenantId_key: { tenantId, key } } });
}

export async function completeEntry(db: Db, tenantId: string, key: string, response: Prisma.InputJsonValue) {
  await db.idempotencyEntry.update({ where: { tenantId_key: { tenantId, key } }, data: { response } });
}
