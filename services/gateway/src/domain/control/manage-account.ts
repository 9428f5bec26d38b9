import { type AccountView, AppError, ErrorCode } from '@tm/contracts';
import { getPrisma, inTransaction } from '../../data-access/prisma-client.js';
import { revokeSession, revokeUserSessions } from '../../data-access/session-repository.js';
import { findUser, updateUser } from '../../data-access/user-repository.js';
import type { Account } from '../identity/authenticate-session.js';
import { hashPassword, verifyPassword } from '../identity/password-hash.js';
import { requireStrongPassword } from '../identity/password-strength.js';
import { ROLE_PERMISSIONS } from '../identity/role-permissions.js';
import type { RateLimits } from '../operations/rate-limits.js';
import { getConsent } from './manage-consent.js';
import { checkedOrGivenBack } from './password-attempt.js';

export async function getAccount(account: Account, db = getPrisma()): Promise<AccountView> {
  return {
    tenant: { id: account.tenantId, name: account.tenantName },
    user: {
      id: account.userId,
      email: account.email,
      role: account.role,
      status: 'active',
      created_at: account.userCreatedAt.toISOString(),
    },
    consent: await getConsent(account, db),
    permissions: [...ROLE_PERMISSIONS[account.role]],
    session: { expires_at: account.expiresAt.toISOString() },
  };
}

export async function logout(account: Account, db = getPrisma()): Promise<void> {
  await revokeSession(db, account.sessionId);
}

/**
 * Change one's own password; every other session of the user ends (this one stays). Wrong current
 * passwords are limited as failed logins are, per user and per client address (`from`).
 */
export async function changePassword(
  account: Account,
  passwords: { current_password: string; new_password: string },
  from: string,
  deps: { rateLimits: RateLimits; db?: ReturnType<typeof getPrisma> },
): Promise<void> {
  const db = deps.db ?? getPrisma();
  const attempt = { account: `user:${account.userId}`, address: from };
  await deps.rateLimits.takePasswordAttempt(attempt);
  const user = await findUser(db, account.tenantId, account.userId);
  const right = await checkedOrGivenBack(attempt, deps.rateLimits, async () =>
    user?.passwordHash ? verifyPassword(passwords.current_password, user.passwordHash, { from }) : false,
  );
  if (!right) throw new AppError(ErrorCode.PermissionDenied, 'The current password is incorrect');
  await deps.rateLimits.passwordAttemptSucceeded(attempt);
  // After the current password: only someone who knows it spends the check's CPU.
  requireStrongPassword(
    passwords.new_password,
    { field: 'new_password', what: 'password change' },
    { email: account.email, tenantName: account.tenantName },
  );
  const passwordHash = await hashPassword(passwords.new_password, { from });
  await inTransaction(db, async (tx) => {
    await updateUser(tx, account.tenantId, account.userId, { passwordHash });
    await revokeUserSessions(tx, account.userId, account.sessionId);
  });
}
