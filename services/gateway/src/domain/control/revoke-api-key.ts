import type { NatsConnection } from '@tm/bus';
import type { SqlRunner } from '@tm/kit';
import { announceIdentityChange } from '../../clients/identity-broadcast.js';
import { revokeKey } from '../../data-access/api-key-repository.js';
import { getSql } from '../../data-access/prisma-client.js';

/**
 * Revoke a key for good. The change is committed, then every gateway instance drops the tenant's
 * verified keys, and only then does this return: the key's next request fails on any instance.
 * Returns false when no such key exists in the tenant (or it was already revoked).
 */
export async function revokeApiKey(
  target: { tenantId: string; keyId: string },
  deps: { nc: NatsConnection; run?: SqlRunner },
): Promise<boolean> {
  const revoked = await revokeKey(deps.run ?? getSql(), target.tenantId, target.keyId);
  await announceIdentityChange(deps.nc, target.tenantId);
  return revoked;
}
