import { decodeJson, type NatsConnection, type Subscription } from '@tm/bus';
import { IdentityChanged, Subjects } from '@tm/contracts';
import type { Logger } from '@tm/kit';
import type { VerifiedKeyCache } from '../../domain/identity/verified-key-cache.js';

/**
 * Every instance hears every identity change (no queue group), drops that tenant's verified keys and
 * acknowledges. While the bus is down this instance might miss one, so its cache stays off until the
 * connection is back.
 */
export function listenForIdentityChanges(
  nc: NatsConnection,
  cache: VerifiedKeyCache,
  logger: Logger,
): Subscription {
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'staleConnection') cache.stopListening();
      if (status.type === 'reconnect') cache.startListening();
    }
  })();
  return nc.subscribe(Subjects.gateway.identityChanged, {
    callback: (err, msg) => {
      if (err) {
        logger.error({ err }, 'identity change subscription failed; verified keys are no longer cached');
        cache.stopListening();
        return;
      }
      const parsed = IdentityChanged.safeParse(decodeJson(msg.data));
      // A message we cannot read could have named any tenant: forget every tenant.
      if (parsed.success) cache.dropTenant(parsed.data.tenant_id);
      else cache.clear();
      msg.respond();
    },
  });
}
