import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@tm/bus';
import { AppError, ErrorCode, type Role, type UserView } from '@tm/contracts';
import { announceIdentityChange } from '../../clients/identity-broadcast.js';
import { getPrisma, inTransaction } from '../../data-access/prisma-client.js';
import { revokeUserSessions } from '../../data-access/session-repository.js';
import {
  countActiveOwners,
  createUser,
  findUser,
  listUsers,
  lockTenantUsers,
  updateUser,
} from '../../data-access/user-repository.js';
import type { Account } from '../identity/authenticate-session.js';
import { hashPassword } from '../identity/password-hash.js';
import { requireStrongPassword } from '../identity/password-strength.js';
import { requireRole, requireRoleOver } from '../identity/role-permissions.js';
import { userView } from './control-views.js';

const userNotFound = () => new AppError(ErrorCode.NotFound, 'No such user');

export async function listTenantUsers(account: Account, db = getPrisma()) {
  requireRole(account.role, 'users:read');
  return { data: (await listUsers(db, account.tenantId)).map(userView) };
}

export async function getTenantUser(account: Account, userId: string, db = getPrisma()): Promise<UserView> {
  requireRole(account.role, 'users:read');
  const user = await findUser(db, account.tenantId, userId);
  if (!user) throw userNotFound();
  return userView(user);
}

/**
 * Add a user to the caller's tenant with an initial password they should change. `from`: the
 * client's address, whose share of the hashing slots the new password's hash takes.
 */
export async function createTenantUser(
  account: Account,
  input: { email: string; password: string; role: Role },
  from: string,
  db = getPrisma(),
): Promise<UserView> {
  requireRole(account.role, 'users:manage');
  requireRoleOver(account.role, input.role);
  requireStrongPassword(
    input.password,
    { field: 'password', what: 'user' },
    { email: input.email, tenantName: account.tenantName },
  );
  const passwordHash = await hashPassword(input.password, { from });
  try {
    const user = await createUser(db, {
      id: randomUUID(),
      tenantId: account.tenantId,
      email: input.email,
      passwordHash,
      role: input.role,
    });
    return userView(user);
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002') {
      throw new AppError(ErrorCode.AlreadyExists, 'An account with this email already exists');
    }
    throw err;
  }
}

/**
 * Change a user's role or status. Disabling ends the user's sessions and, through the identity
 * broadcast, their keys on every instance. A tenant always keeps one active owner.
 */
export async function updateTenantUser(
  account: Account,
  userId: string,
  change: { role?: Role; status?: 'active' | 'disabled' },
  deps: { nc: NatsConnection; db?: ReturnType<typeof getPrisma> },
): Promise<UserView> {
  const db = deps.db ?? getPrisma();
  requireRole(account.role, 'users:manage');
  const updated = await inTransaction(db, async (tx) => {
    await lockTenantUsers(tx, account.tenantId);
    const user = await findUser(tx, account.tenantId, userId);
    if (!user) throw userNotFound();
    requireRoleOver(account.role, user.role);
    if (change.role) requireRoleOver(account.role, change.role);
    const [row] = await updateUser(tx, account.tenantId, userId, change);
    if (!row) throw userNotFound();
    if (user.role === 'owner' && (await countActiveOwners(tx, account.tenantId)) === 0) {
      throw new AppError(ErrorCode.PermissionDenied, 'A tenant must keep at least one active owner');
    }
    if (change.status === 'disabled') await revokeUserSessions(tx, userId);
    return row;
  });
  await announceIdentityChange(deps.nc, account.tenantId);
  return userView(updated);
}
