import type { Role } from '@tm/contracts';
import { getPrisma } from '../data-access/prisma-client.js';
import { findLiveSession } from '../data-access/session-repository.js';
import { authenticationRequired } from './authenticate-api-key.js';
import { readSessionToken } from './session-token.js';

/** Who is signed in: everything comes from the session row and its user, nothing from the token's claims. */
export interface Account {
  kind: 'session';
  sessionId: string;
  expiresAt: Date;
  tenantId: string;
  tenantName: string;
  userId: string;
  email: string | null;
  role: Role;
  userCreatedAt: Date;
}

/** Verify a session token: signature, expiry, and a live session of an active user; 401 otherwise. */
export async function authenticateSession(
  token: string,
  deps: { signingKey: Uint8Array; db?: ReturnType<typeof getPrisma> },
): Promise<Account> {
  const claims = await readSessionToken(deps.signingKey, token);
  if (!claims) throw authenticationRequired();
  const session = await findLiveSession(deps.db ?? getPrisma(), claims.sessionId, claims.userId);
  if (!session) throw authenticationRequired();
  return {
    kind: 'session',
    sessionId: session.sessionId,
    expiresAt: session.expiresAt,
    tenantId: session.tenantId,
    tenantName: session.tenantName,
    userId: session.userId,
    email: session.email,
    role: session.role,
    userCreatedAt: session.userCreatedAt,
  };
}
