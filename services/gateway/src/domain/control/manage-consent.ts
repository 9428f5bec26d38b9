import type { NatsConnection } from '@tm/bus';
import type { ConsentView } from '@tm/contracts';
import { announceIdentityChange } from '../../clients/identity-broadcast.js';
import { findConsent, listConsentEvents, setConsent } from '../../data-access/consent-repository.js';
import { getPrisma, inTransaction } from '../../data-access/prisma-client.js';
import type { Account } from '../identity/authenticate-session.js';

const HISTORY_LIMIT = 500;

export async function getConsent(account: Account, db = getPrisma()): Promise<ConsentView> {
  const consent = await findConsent(db, account.tenantId, account.userId);
  return {
    purpose: 'private_memory',
    state: consent?.state ?? 'missing',
    updated_at: consent?.updatedAt.toISOString() ?? null,
  };
}

/**
 * Grant or revoke the signed-in user's private-memory consent. The change and its audit row commit
 * together; every gateway instance then drops what it had verified for the tenant, so the next write
 * through any of the user's keys sees the new state. Earlier data is not touched.
 */
export async function changeConsent(
  account: Account,
  state: 'granted' | 'revoked',
  context: { requestId: string; nc: NatsConnection },
  db = getPrisma(),
): Promise<ConsentView> {
  await inTransaction(db, (tx) =>
    setConsent(tx, {
      tenantId: account.tenantId,
      userId: account.userId,
      state,
      actorUserId: account.userId,
      requestId: context.requestId,
    }),
  );
  await announceIdentityChange(context.nc, account.tenantId);
  return getConsent(account, db);
}

/** The user's consent changes, newest first (the most recent 500). */
export async function consentHistory(account: Account, db = getPrisma()) {
  const events = await listConsentEvents(db, account.tenantId, account.userId, HISTORY_LIMIT);
  return {
    purpose: 'private_memory' as const,
    data: events.map((e) => ({
      state: e.state,
      actor_user_id: e.actorUserId,
      request_id: e.requestId,
      occurred_at: e.occurredAt.toISOString(),
    })),
  };
}
