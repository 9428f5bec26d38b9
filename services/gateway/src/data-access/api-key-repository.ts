import type { Role } from '@tm/contracts';
import { prepared, type SqlRunner } from '@tm/kit';
import type { Prisma } from './generated/client.js';
import type { Db } from './prisma-client.js';

export interface KeyRecord {
  id: string;
  tenantId: string;
  userId: string;
  revokedAt: Date | null;
  permissions: string[];
  userActive: boolean;
  userRole: Role;
  storageId: string | null;
  storageKind: 'managed' | 'customer_owned' | null;
  storageStatus: 'active' | 'disabled' | null;
  consent: 'granted' | 'revoked' | null;
}

const FIND_KEY_BY_HASH = prepared(
  'auth_find_key_by_hash',
  `
    SELECT k.id::text AS "id", k.tenant_id::text AS "tenantId", k.user_id::text AS "userId", k.revoked_at AS "revokedAt",
           k.permissions AS "permissions", u.status = 'active' AS "userActive", u.role::text AS "userRole",
           s.id::text AS "storageId", s.kind::text AS "storageKind", s.status::text AS "storageStatus",
           c.state::text AS "consent"
      FROM api_key k
      JOIN app_user u ON u.id = k.user_id
      LEFT JOIN storage_connection s ON s.id = k.storage_connection_id
      LEFT JOIN consent c ON c.tenant_id = k.tenant_id AND c.user_id = k.user_id AND c.purpose = 'private_memory'
     WHERE k.secret_hash = $1`,
);

/** Everything authentication needs about a key, in one indexed lookup by hash (one round trip). */
export async function findKeyByHash(run: SqlRunner, secretHash: string): Promise<KeyRecord | undefined> {
  const rows = await run<KeyRecord>(FIND_KEY_BY_HASH, [secretHash]);
  return rows[0];
}

/** Revoke one key of one tenant; false when the tenant has no such unrevoked key. */
export async function revokeKey(run: SqlRunner, tenantId: string, keyId: string): Promise<boolean> {
  const rows = await run<{ id: string }>(
    `UPDATE api_key SET revoked_at = now()
      WHERE tenant_id = $1::uuid AND id = $2::uuid AND revoked_at IS NULL
      RETURNING id::text AS id`,
    [tenantId, keyId],
  );
  return rows.length > 0;
}

/**
 * The same revocation on a Prisma handle, so that a rotation revokes the old key and creates the new
 * one in one transaction (`revokeKey` runs on the pool, outside any). False when it was revoked already.
 */
export async function revokeKeyInTransaction(tx: Db, tenantId: string, keyId: string): Promise<boolean> {
  const revoked = await tx.apiKey.updateMany({
    where: { tenantId, id: keyId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  return revoked.count > 0;
}

export const insertKey = (db: Db, data: Prisma.ApiKeyUncheckedCreateInput) => db.apiKey.create({ data });

/** Rename, re-permission or re-attach one key (the caller has checked it is the tenant's). */
export const updateKey = (
  db: Db,
  keyId: string,
  data: { name?: string; permissions?: string[]; storageConnectionId?: string | null },
) => db.apiKey.update({ where: { id: keyId }, data });

/** A tenant's keys, newest first. */
export const listKeys = (db: Db, tenantId: string) =>
  db.apiKey.findMany({ where: { tenantId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });

export const findKey = (db: Db, tenantId: string, keyId: string) =>
  db.apiKey.findFirst({ where: { tenantId, id: keyId } });

const TOUCH_KEY = prepared(
  'auth_touch_key',
  `UPDATE api_key SET last_used_at = now()
    WHERE id = $1::uuid AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
);

/** Note a key's use; the condition keeps it to one row write per key and minute across instances. */
export async function touchKey(run: SqlRunner, keyId: string): Promise<void> {
  await run(TOUCH_KEY, [keyId]);
}
