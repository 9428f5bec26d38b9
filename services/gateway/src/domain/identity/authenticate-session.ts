import { getPrisma } from '../../data-access/prisma-client.js';
import { findLiveSession, type LiveSession } from '../../data-access/session-repository.js';
import { sessionNotAccepted } from './authenticate-api-key.js';
import { readSessionToken } from './session-token.js';

/** Who is signed in: everything comes from the session row and its user, nothing from the token's claims. */
export type Account = LiveSession & { kind: 'session' };

/** Verify a session token: signature, expiry, and a live session of an active user; 401 otherwise. */
export async function authenticateSession(
  token: string,
  deps: { signingKey: Uint8Array; db?: ReturnType<typeof getPrisma> },
): Promise<Account> {
  const claims = await readSessionToken(deps.signingKey, token);
  if (!claims) throw sessionNotAccepted();
  const session = await findLiveSession(deps.db ?? getPrisma(), claims.sessionId, claims.userId);
  if (!session) throw sessionNotAccepted();
  return { kind: 'session', ...session };
}
