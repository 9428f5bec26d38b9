import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@tm/bus';
import {
  type ApiKeyCreated,
  type ApiKeyCreateRequest,
  type ApiKeyView,
  AppError,
  ErrorCode,
  type KeyPermission,
} from '@tm/contracts';
import { announceIdentityChange } from '../../clients/identity-broadcast.js';
import {
  findKey,
  insertKey,
  listKeys,
  revokeKeyInTransaction,
  updateKey,
} from '../../data-access/api-key-repository.js';
import { type Db, getPrisma, inTransaction } from '../../data-access/prisma-client.js';
import {
  findDefaultStorageConnection,
  findStorageConnection,
} from '../../data-access/storage-connection-repository.js';
import { findUser } from '../../data-access/user-repository.js';
import { generateApiKey } from '../identity/api-key-secret.js';
import type { Account } from '../identity/authenticate-session.js';
import {
  keyPermissionsOf,
  requireKeyPermissionsWithin,
  requireRole,
  requireRoleOver,
} from '../identity/role-permissions.js';
import { apiKeyView } from './control-views.js';
import { revokeApiKey } from './revoke-api-key.js';

interface Deps {
  nc: NatsConnection;
  db?: ReturnType<typeof getPrisma>;
}

const keyNotFound = () => new AppError(ErrorCode.NotFound, 'No such API key');
const storageNotFound = () => new AppError(ErrorCode.NotFound, 'No such storage connection');

/**
 * A key the signed-in user may edit, revoke or rotate, with the role of the user it acts for. Their
 * own keys; another user's only as they could manage that user (requireRoleOver: an admin never an
 * owner's, or a rotation would hand them a key acting as the owner); developers only their own.
 */
async function manageableKey(db: Db, account: Account, keyId: string) {
  requireRole(account.role, 'keys:manage');
  const key = await findKey(db, account.tenantId, keyId);
  if (!key) throw keyNotFound();
  if (key.userId === account.userId) return { key, userRole: account.role };
  if (account.role === 'developer') {
    throw new AppError(ErrorCode.PermissionDenied, 'Developers can manage only their own API keys');
  }
  const user = await findUser(db, account.tenantId, key.userId);
  if (!user) throw keyNotFound();
  requireRoleOver(account.role, user.role, "an owner's API keys");
  return { key, userRole: user.role };
}

async function storageConnectionFor(db: Db, tenantId: string, requested: string | null | undefined) {
  if (requested === null) return null;
  if (requested === undefined) return (await findDefaultStorageConnection(db, tenantId))?.id ?? null;
  if (!(await findStorageConnection(db, tenantId, requested))) throw storageNotFound();
  return requested;
}

export async function listApiKeys(account: Account, db = getPrisma()) {
  requireRole(account.role, 'keys:read');
  return { data: (await listKeys(db, account.tenantId)).map(apiKeyView) };
}

export async function getApiKey(account: Account, keyId: string, db = getPrisma()): Promise<ApiKeyView> {
  requireRole(account.role, 'keys:read');
  const key = await findKey(db, account.tenantId, keyId);
  if (!key) throw keyNotFound();
  return apiKeyView(key);
}

/**
 * A new key acting for the signed-in user (a rotation keeps the old key's user); the full key is in
 * this answer only.
 */
export async function createApiKey(
  account: Account,
  input: ApiKeyCreateRequest,
  deps: Deps,
  rotation?: { fromId: string; userId: string },
): Promise<ApiKeyCreated> {
  requireRole(account.role, 'keys:manage');
  // A rotation copies a key the tenant already has; its user's role still bounds it when it is used.
  if (!rotation && input.permissions) requireKeyPermissionsWithin(account.role, input.permissions);
  const db = deps.db ?? getPrisma();
  const secret = generateApiKey();
  const row = await insertKey(db, {
    id: randomUUID(),
    tenantId: account.tenantId,
    userId: rotation?.userId ?? account.userId,
    storageConnectionId: await storageConnectionFor(db, account.tenantId, input.storage_connection_id),
    name: input.name,
    prefix: secret.prefix,
    secretHash: secret.secretHash,
    permissions: input.permissions ?? keyPermissionsOf(account.role),
    rotatedFromId: rotation?.fromId ?? null,
  });
  return { ...apiKeyView(row), key: secret.key };
}

/** Apply a change to one key, then make every gateway instance forget what it had verified. */
async function changeKey(
  account: Account,
  keyId: string,
  data: { name?: string; permissions?: KeyPermission[]; storageConnectionId?: string | null },
  deps: Deps,
): Promise<ApiKeyView> {
  const db = deps.db ?? getPrisma();
  const { userRole } = await manageableKey(db, account, keyId);
  if (data.permissions) {
    // Within both the changer's role (nobody grants what they do not hold) and the role of the user
    // the key acts for (it could not use more).
    requireKeyPermissionsWithin(account.role, data.permissions);
    requireKeyPermissionsWithin(userRole, data.permissions);
  }
  const row = await updateKey(db, keyId, data);
  await announceIdentityChange(deps.nc, account.tenantId);
  return apiKeyView(row);
}

/** Rename or re-permission a key (its permissions bounded by roles, in `changeKey`). */
export const updateApiKey = (
  account: Account,
  keyId: string,
  change: { name?: string; permissions?: KeyPermission[] },
  deps: Deps,
) => changeKey(account, keyId, change, deps);

export async function attachStorageConnection(
  account: Account,
  keyId: string,
  storageConnectionId: string,
  deps: Deps,
): Promise<ApiKeyView> {
  const db = deps.db ?? getPrisma();
  if (!(await findStorageConnection(db, account.tenantId, storageConnectionId))) throw storageNotFound();
  return changeKey(account, keyId, { storageConnectionId }, deps);
}

export const detachStorageConnection = (account: Account, keyId: string, deps: Deps) =>
  changeKey(account, keyId, { storageConnectionId: null }, deps);

/**
 * Revoke for good (idempotent: revoking a revoked key answers its current state). The change is
 * committed and every gateway instance has dropped the tenant's verified keys before this returns.
 */
export async function revokeTenantApiKey(account: Account, keyId: string, deps: Deps): Promise<ApiKeyView> {
  const db = deps.db ?? getPrisma();
  const { key } = await manageableKey(db, account, keyId);
  if (key.revokedAt) return apiKeyView(key);
  // The admin command's revocation: only the first sets revoked_at, then every instance forgets the key.
  await revokeApiKey({ tenantId: account.tenantId, keyId }, { nc: deps.nc });
  const row = await findKey(db, account.tenantId, keyId);
  if (!row) throw keyNotFound();
  return apiKeyView(row);
}

/**
 * Replace a key: a new one with the same name, permissions and storage connection, and the old one
 * revoked, in one transaction. A revoked key cannot be rotated (409): its replacement may exist already.
 */
export async function rotateApiKey(account: Account, keyId: string, deps: Deps): Promise<ApiKeyCreated> {
  const db = deps.db ?? getPrisma();
  const created = await inTransaction(db, async (tx) => {
    const { key: old } = await manageableKey(tx, account, keyId);
    if (!(await revokeKeyInTransaction(tx, account.tenantId, keyId))) {
      throw new AppError(ErrorCode.AlreadyExists, 'This API key is revoked; create a new key instead');
    }
    return createApiKey(
      account,
      {
        name: old.name,
        permissions: old.permissions as KeyPermission[],
        storage_connection_id: old.storageConnectionId,
      },
      { ...deps, db: tx as ReturnType<typeof getPrisma> },
      { fromId: old.id, userId: old.userId },
    );
  });
  await announceIdentityChange(deps.nc, account.tenantId);
  return created;
}
