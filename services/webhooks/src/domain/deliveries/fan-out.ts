import type { WebhookEventType, WebhookPayload } from '@tm/contracts';
import { timeOrderedId } from '@tm/kit';
import { type NewDelivery, queueDeliveries } from '../../data-access/delivery-repository.js';
import { subscribedEndpoints } from '../../data-access/endpoint-repository.js';
import { type Db, getPrisma } from '../../data-access/prisma-client.js';

/** Something that happened in a tenant, as its owner published it, ready to be delivered. */
export interface TenantEvent {
  tenantId: string;
  /** The webhook-id: derived from the owner's own id for the event, so a redelivered message maps to it again. */
  messageId: string;
  payload: WebhookPayload;
}

/**
 * Queue one delivery per enabled endpoint of the event's tenant that asked for its type, in one
 * statement: the durable outbox the poller sends from. A delivery already queued for an endpoint and
 * message is skipped, so an event handed over twice (a redelivered JetStream message) is queued once.
 * Returns how many deliveries were queued.
 */
export async function fanOut(events: TenantEvent[], db: Db = getPrisma()): Promise<number> {
  if (events.length === 0) return 0;
  const endpoints = await subscribedEndpoints(db, [...new Set(events.map((e) => e.tenantId))]);
  const rows: NewDelivery[] = events.flatMap((event) =>
    endpoints
      .filter(
        (e) => e.tenantId === event.tenantId && e.events.includes(event.payload.type as WebhookEventType),
      )
      .map((endpoint) => ({
        id: timeOrderedId(),
        tenantId: event.tenantId,
        endpointId: endpoint.id,
        messageId: event.messageId,
        eventType: event.payload.type,
        payload: event.payload as unknown as NewDelivery['payload'],
      })),
  );
  if (rows.length === 0) return 0;
  return (await queueDeliveries(db, rows)).count;
}
