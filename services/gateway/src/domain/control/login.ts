import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode, type SessionCreated } from '@tm/contracts';
import { getPrisma } from '../../data-access/prisma-client.js';
import { createSession } from '../../data-access/session-repository.js';
import { findUserByEmail } from '../../data-access/user-repository.js';
import { burnPasswordCheck, verifyPassword } from '../identity/password-hash.js';
import { signSessionToken } from '../identity/session-token.js';
import type { RateLimits } from '../operations/rate-limits.js';
import { userView } from './control-views.js';
import { checkedOrGivenBack } from './password-attempt.js';

export interface SessionSettings {
  signingKey: Uint8Array;
  ttlMinutes: number;
}

/** The same answer for an unknown address, a wrong password and a disabled user. */
const invalidLogin = () =>
  new AppError(ErrorCode.AuthenticationRequired, 'Authentication required: email or password is incorrect');

/**
 * Check an email and password and open a session; the token is returned once. `from` is the client's
 * address (behind a trusted proxy, the one it reports): failures are limited per email and per address.
 */
export async function login(
  credentials: { email: string; password: string },
  from: string,
  deps: { sessions: SessionSettings; rateLimits: RateLimits; db?: ReturnType<typeof getPrisma> },
): Promise<SessionCreated> {
  const db = deps.db ?? getPrisma();
  const { email, password } = credentials;
  const attempt = { account: `email:${email}`, address: from };
  await deps.rateLimits.takePasswordAttempt(attempt);
  const user = await findUserByEmail(db, email);
  const valid = await checkedOrGivenBack(attempt, deps.rateLimits, () =>
    user?.passwordHash && user.status === 'active'
      ? verifyPassword(password, user.passwordHash, { from })
      : burnPasswordCheck(password, { from }),
  );
  if (!user || !valid) throw invalidLogin();
  await deps.rateLimits.passwordAttemptSucceeded(attempt);

  const session = {
    id: randomUUID(),
    tenantId: user.tenantId,
    userId: user.id,
    expiresAt: new Date(Date.now() + deps.sessions.ttlMinutes * 60_000),
  };
  await createSession(db, session);
  return {
    token: await signSessionToken(deps.sessions.signingKey, session),
    token_type: 'Bearer',
    expires_at: session.expiresAt.toISOString(),
    user: userView(user),
    tenant: { id: user.tenant.id, name: user.tenant.name },
  };
}
