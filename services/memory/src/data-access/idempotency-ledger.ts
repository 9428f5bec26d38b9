import type { Prisma } from './generated/client.js';
import type { Db } from './prisma-client.js';

/**
 * Claim a key for this write inside the caller's transaction. A concurrent claim of the same key
 * blocks on the unique index until the first transaction ends, then sees the committed entry:
 * so duplicates in flight become replays, never second writes. False means the key was taken.
 */
export async function claimKey(
  db: Db,
  e: { tenantId: string; key: string; namespace: string; fingerprint: string; requestId: string },
): Promise<boolean> {
  const claimed = await db.$executeRaw`
    INSERT INTO idempotency_entry (tenant_id, key, namespace, fingerprint, request_id)
    VALUES (${e.tenantId}, ${e.key}, ${e.namespace}, ${e.fingerprint}, ${e.requestId})
    ON CONFLICT (tenant_id, key) DO NOTHING`;
  return claimed === 1;
}

export function findEntry(db: Db, tenantId: string, key: string) {
  return db.idempotencyEntry.findUnique({ where: { tenantId_key: { tenantId, key } } });
}

export async function completeEntry(db: Db, tenantId: string, key: string, response: Prisma.InputJsonValue) {
  await db.idempotencyEntry.update({ where: { tenantId_key: { tenantId, key } }, data: { response } });
}

export async function deleteEntriesForNamespace(db: Db, tenantId: string, namespace: string) {
  const { count } = await db.idempotencyEntry.deleteMany({ where: { tenantId, namespace } });
  return count;
}
