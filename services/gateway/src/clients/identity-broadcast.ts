import { encodeJson, type NatsConnection } from '@tm/bus';
import { IdentityChanged, Subjects } from '@tm/contracts';

/** How long the broadcast waits for another instance's acknowledgement after the last one arrived. */
const STALL_MS = 50;

/**
 * Tell every gateway instance that a tenant's keys, storage or consent changed, and wait until the
 * instances that answer have dropped what they had verified. Called after the change is committed and
 * before it is acknowledged, so the next request on any instance sees it. An instance that cannot be
 * reached is not listening and therefore caches nothing (see verified-key-cache.ts).
 */
export async function announceIdentityChange(nc: NatsConnection, tenantId: string): Promise<number> {
  const replies = await nc.requestMany(
    Subjects.gateway.identityChanged,
    encodeJson(IdentityChanged.parse({ tenant_id: tenantId })),
    { strategy: 'stall', stall: STALL_MS, maxWait: 2_000 },
  );
  let acknowledged = 0;
  for await (const _ of replies) acknowledged++;
  return acknowledged;
}
