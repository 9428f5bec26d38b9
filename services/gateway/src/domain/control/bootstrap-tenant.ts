import { randomUUID } from 'node:crypto';
import { getPrisma, inTransaction } from '../../data-access/prisma-client.js';
import { createTenantGraph } from '../../data-access/tenant-repository.js';
import { generateApiKey } from '../identity/api-key-secret.js';
import { hashPassword } from '../identity/password-hash.js';
import { requireStrongPassword } from '../identity/password-strength.js';

export interface BootstrapOptions {
  name: string;
  /** The owner's login; without it the owner cannot sign in (keys only). */
  email?: string;
  password?: string;
  /** Grant private-memory consent for the owner (default true). */
  consent?: boolean;
  /** Attach a managed storage connection to the key (default true). */
  storage?: boolean;
}

/**
 * A working tenant in one step: owner, managed storage connection, consent and an API key.
 * The full key is returned once and never stored.
 */
export async function bootstrapTenant(options: BootstrapOptions, prisma = getPrisma()) {
  const tenantId = randomUUID();
  const userId = randomUUID();
  const storageId = randomUUID();
  const keyId = randomUUID();
  const secret = generateApiKey();
  const withStorage = options.storage ?? true;
  const email = options.email?.trim().toLowerCase() ?? null;
  if (options.password) {
    requireStrongPassword(
      options.password,
      { field: 'password', what: 'owner' },
      { email, tenantName: options.name },
    );
  }
  // An operator's command: it waits for a hashing slot rather than be refused.
  const passwordHash = options.password ? await hashPassword(options.password, { mustRun: true }) : null;
  await inTransaction(prisma, (tx) =>
    createTenantGraph(tx, {
      tenant: { id: tenantId, name: options.name },
      user: { id: userId, tenantId, email, passwordHash, role: 'owner' },
      storage: withStorage ? { id: storageId, tenantId, name: 'managed-default', kind: 'managed' } : null,
      consent: (options.consent ?? true) ? { tenantId, userId, state: 'granted' } : null,
      key: {
        id: keyId,
        tenantId,
        userId,
        storageConnectionId: withStorage ? storageId : null,
        name: 'bootstrap',
        prefix: secret.prefix,
        secretHash: secret.secretHash,
      },
    }),
  );
  return {
    tenant_id: tenantId,
    user_id: userId,
    owner_email: email,
    storage_connection_id: withStorage ? storageId : null,
    key_id: keyId,
    key_prefix: secret.prefix,
    api_key: secret.key,
  };
}
