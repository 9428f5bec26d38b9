import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@tm/bus';
import {
  AppError,
  ErrorCode,
  type StorageConnectionCreateRequest,
  type StorageConnectionUpdateRequest,
  type StorageConnectionView,
} from '@tm/contracts';
import { sealSecret } from '@tm/kit';
import { announceIdentityChange } from '../../clients/identity-broadcast.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import {
  findStorageConnection,
  createStorageConnection as insertStorageConnection,
  listStorageConnections,
  updateStorageConnection as writeStorageConnection,
} from '../../data-access/storage-connection-repository.js';
import type { Account } from '../identity/authenticate-session.js';
import { requireRole } from '../identity/role-permissions.js';
import { storageConnectionView } from './control-views.js';

interface Deps {
  nc: NatsConnection;
  storageSecretKey: Buffer;
  db?: ReturnType<typeof getPrisma>;
}

const notFound = () => new AppError(ErrorCode.NotFound, 'No such storage connection');

export async function listTenantStorageConnections(account: Account, db = getPrisma()) {
  requireRole(account.role, 'storage:read');
  return { data: (await listStorageConnections(db, account.tenantId)).map(storageConnectionView) };
}

export async function getTenantStorageConnection(
  account: Account,
  id: string,
  db = getPrisma(),
): Promise<StorageConnectionView> {
  requireRole(account.role, 'storage:read');
  const row = await findStorageConnection(db, account.tenantId, id);
  if (!row) throw notFound();
  return storageConnectionView(row);
}

/**
 * A managed connection (memory requests run on it) or a customer-owned one: its settings are
 * validated and stored, its secret encrypted and never returned, and memory requests through a key
 * attached to it are refused (control plane only).
 */
export async function createTenantStorageConnection(
  account: Account,
  input: StorageConnectionCreateRequest,
  deps: Deps,
): Promise<StorageConnectionView> {
  requireRole(account.role, 'storage:manage');
  const id = randomUUID();
  const row = await insertStorageConnection(deps.db ?? getPrisma(), {
    id,
    tenantId: account.tenantId,
    name: input.name,
    kind: input.kind,
    ...(input.kind === 'customer_owned'
      ? { settings: input.settings, secretCiphertext: sealSecret(deps.storageSecretKey, input.secret, id) }
      : {}),
  });
  return storageConnectionView(row);
}

/** Rename, disable/enable, or replace a customer-owned connection's settings or secret. */
export async function updateTenantStorageConnection(
  account: Account,
  id: string,
  change: StorageConnectionUpdateRequest,
  deps: Deps,
): Promise<StorageConnectionView> {
  requireRole(account.role, 'storage:manage');
  const db = deps.db ?? getPrisma();
  const current = await findStorageConnection(db, account.tenantId, id);
  if (!current) throw notFound();
  if (current.kind === 'managed' && (change.settings || change.secret)) {
    throw new AppError(ErrorCode.ValidationFailed, 'A managed storage connection has no settings or secret', {
      fields: [
        { path: change.settings ? 'settings' : 'secret', message: 'only for customer_owned connections' },
      ],
    });
  }
  const [row] = await writeStorageConnection(db, account.tenantId, id, {
    ...(change.name !== undefined ? { name: change.name } : {}),
    ...(change.status !== undefined ? { status: change.status } : {}),
    ...(change.settings !== undefined ? { settings: change.settings } : {}),
    ...(change.secret !== undefined
      ? { secretCiphertext: sealSecret(deps.storageSecretKey, change.secret, id) }
      : {}),
  });
  if (!row) throw notFound();
  // A status change decides whether memory requests through the attached keys are dispatched.
  if (change.status !== undefined) await announceIdentityChange(deps.nc, account.tenantId);
  return storageConnectionView(row);
}
