import { ChargeVoidedEvent } from '@tm/contracts';
import { eventMapping } from './event-mapping.js';

/** A voided charge as a `charge.voided` event: the charge, its amount, what it was, who voided it and why. */
export const chargeVoidedEvent = eventMapping(ChargeVoidedEvent, 'charge.voided', {
  id: (event) => event.event_id,
  data: (event) => ({
    charge_id: event.charge_id,
    operation: event.operation,
    units: event.units,
    amount_usd: event.amount_usd,
    previous_state: event.previous_state,
    reason: event.reason,
    actor_user_id: event.actor_user_id,
    request_id: event.request_id,
    state: 'void',
  }),
});
