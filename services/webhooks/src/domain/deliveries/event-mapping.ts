import type { WebhookEventType, WebhookPayload } from '@tm/contracts';
import type { z } from 'zod';
import type { TenantEvent } from './fan-out.js';

/** What every owner's message says of its event: whose it is and when it happened. */
interface OwnerMessage {
  tenant_id: string;
  occurred_at: string;
}

/**
 * How an owner's message becomes a webhook event of `type`. The envelope is every type's: the tenant,
 * the webhook-id (`msg_` and the owner's own id for the event, `id`, so a redelivered message maps to
 * the same one), the type and the time. `data` is the type's own whitelist of fields, so a field an
 * owner adds reaches no receiver until it is named there. A message the schema refuses, or that
 * `data` gives nothing for, is not such an event.
 */
export function eventMapping<S extends z.ZodType<OwnerMessage>>(
  schema: S,
  type: WebhookEventType,
  fields: {
    id: (message: z.output<S>) => string;
    data: (message: z.output<S>) => WebhookPayload['data'] | undefined;
  },
): (record: unknown) => TenantEvent | undefined {
  return (record) => {
    const parsed = schema.safeParse(record);
    if (!parsed.success) return undefined;
    const message = parsed.data;
    const data = fields.data(message);
    if (data === undefined) return undefined;
    return {
      tenantId: message.tenant_id,
      messageId: `msg_${fields.id(message)}`,
      payload: { type, timestamp: message.occurred_at, data },
    };
  };
}
