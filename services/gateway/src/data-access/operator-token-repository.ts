import type { Prisma } from './generated/client.js';
import type { Db } from './prisma-client.js';

export const insertOperatorToken = (db: Db, data: Prisma.OperatorTokenUncheckedCreateInput) =>
  db.operatorToken.create({ data });

/** A tenant's operator tokens, newest first. */
export const listTenantOperatorTokens = (db: Db, tenantId: string) =>
  db.operatorToken.findMany({ where: { tenantId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });

export const findOperatorToken = (db: Db, tenantId: string, id: string) =>
  db.operatorToken.findFirst({ where: { tenantId, id } });

/** Sets revoked_at only the first time, so a token keeps the moment it was first revoked. */
export async function markOperatorTokenRevoked(db: Db, tenantId: string, id: string): Promise<void> {
  await db.operatorToken.updateMany({
    where: { tenantId, id, revokedAt: null },
    data: { revokedAt: new Date() },
  });
}

/** Any tenant's unrevoked, unexpired token with this hash: the release record's operator view. */
export const findAnyLiveOperatorToken = (db: Db, secretHash: string) =>
  db.operatorToken.findFirst({ where: { secretHash, revokedAt: null, expiresAt: { gt: new Date() } } });

/** The tenant's unrevoked, unexpired token with this hash, if any. */
export const findLiveOperatorToken = (db: Db, tenantId: string, secretHash: string) =>
  db.operatorToken.findFirst({
    where: { secretHash, tenantId, revokedAt: null, expiresAt: { gt: new Date() } },
  });
