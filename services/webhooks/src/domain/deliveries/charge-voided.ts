import { ChargeVoidedEvent } from '@tm/contracts';
import type { TenantEvent } from './fan-out.js';

/** A voided charge as a `charge.voided` event: the charge, its amount, what it was, who voided it and why. */
export function chargeVoidedEvent(record: unknown): TenantEvent | undefined {
  const parsed = ChargeVoidedEvent.safeParse(record);
  if (!parsed.success) return undefined;
  const event = parsed.data;
  return {
    tenantId: event.tenant_id,
    messageId: `msg_${event.event_id}`,
    payload: {
      type: 'charge.voided',
      timestamp: event.occurred_at,
      data: {
        charge_id: event.charge_id,
        operation: event.operation,
        units: event.units,
        amount_usd: event.amount_usd,
        previous_state: event.previous_state,
        reason: event.reason,
        actor_user_id: event.actor_user_id,
        request_id: event.request_id,
        state: 'void',
      },
    },
  };
}
