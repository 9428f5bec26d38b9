import { randomUUID } from 'node:crypto';
import type { Db } from './prisma-client.js';

const PURPOSE = 'private_memory';

export const findConsent = (db: Db, tenantId: string, userId: string) =>
  db.consent.findUnique({ where: { tenantId_userId_purpose: { tenantId, userId, purpose: PURPOSE } } });

/** Set the state and append it to the audit trail, in the caller's transaction. */
export async function setConsent(
  db: Db,
  change: {
    tenantId: string;
    userId: string;
    state: 'granted' | 'revoked';
    actorUserId: string | null;
    requestId: string | null;
  },
) {
  const { tenantId, userId, state } = change;
  const consent = await db.consent.upsert({
    where: { tenantId_userId_purpose: { tenantId, userId, purpose: PURPOSE } },
    create: { tenantId, userId, purpose: PURPOSE, state },
    update: { state },
  });
  await db.consentEvent.create({
    data: {
      id: randomUUID(),
      tenantId,
      userId,
      purpose: PURPOSE,
      state,
      actorUserId: change.actorUserId,
      requestId: change.requestId,
    },
  });
  return consent;
}

export const listConsentEvents = (db: Db, tenantId: string, userId: string, limit: number) =>
  db.consentEvent.findMany({
    where: { tenantId, userId, purpose: PURPOSE },
    orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }],
    take: limit,
  });
