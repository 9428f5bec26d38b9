import type { Role } from '@tm/contracts';
import type { Db } from './prisma-client.js';

export interface LiveSession {
  sessionId: string;
  expiresAt: Date;
  tenantId: string;
  tenantName: string;
  userId: string;
  email: string | null;
  role: Role;
  userCreatedAt: Date;
}

export async function createSession(
  db: Db,
  data: { id: string; tenantId: string; userId: string; expiresAt: Date },
): Promise<void> {
  await db.session.create({ data });
}

/** The session if it is unrevoked and unexpired and its user is active. */
export async function findLiveSession(
  db: Db,
  sessionId: string,
  userId: string,
): Promise<LiveSession | undefined> {
  const row = await db.session.findFirst({
    where: {
      id: sessionId,
      userId,
      revokedAt: null,
      expiresAt: { gt: new Date() },
      user: { status: 'active' },
    },
    include: { user: { include: { tenant: true } } },
  });
  if (!row) return undefined;
  return {
    sessionId: row.id,
    expiresAt: row.expiresAt,
    tenantId: row.tenantId,
    tenantName: row.user.tenant.name,
    userId: row.userId,
    email: row.user.email,
    role: row.user.role,
    userCreatedAt: row.user.createdAt,
  };
}

export async function revokeSession(db: Db, sessionId: string): Promise<void> {
  await db.session.updateMany({ where: { id: sessionId, revokedAt: null }, data: { revokedAt: new Date() } });
}

/** End every live session of a user, except one (the caller's own, on a password change). */
export async function revokeUserSessions(db: Db, userId: string, except?: string): Promise<void> {
  await db.session.updateMany({
    where: { userId, revokedAt: null, ...(except ? { id: { not: except } } : {}) },
    data: { revokedAt: new Date() },
  });
}
