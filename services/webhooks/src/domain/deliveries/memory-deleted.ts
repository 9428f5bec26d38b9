import { MemoryDeletedEvent } from '@tm/contracts';
import type { TenantEvent } from './fan-out.js';

/** A forgotten memory as a `memory.deleted` event: its id, namespace and what is current again. */
export function memoryDeletedEvent(record: unknown): TenantEvent | undefined {
  const parsed = MemoryDeletedEvent.safeParse(record);
  if (!parsed.success) return undefined;
  const event = parsed.data;
  return {
    tenantId: event.tenant_id,
    messageId: `msg_${event.event_id}`,
    payload: {
      type: 'memory.deleted',
      timestamp: event.occurred_at,
      data: {
        memory_id: event.memory_id,
        namespace: event.namespace,
        reinstated: event.reinstated,
        request_id: event.request_id,
        state: 'deleted',
      },
    },
  };
}
