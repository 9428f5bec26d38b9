import { UsageRecordedEvent } from '@tm/contracts';
import type { TenantEvent } from './fan-out.js';

/**
 * A retained write's usage record as a `memory.retained` event: ids and state only (never text).
 * Recall records, and write records from before they carried the memory id, are not events.
 */
export function memoryRetainedEvent(record: unknown): TenantEvent | undefined {
  const parsed = UsageRecordedEvent.safeParse(record);
  if (!parsed.success) return undefined;
  const usage = parsed.data;
  if (usage.operation !== 'memory.write' || usage.memory_id === undefined) return undefined;
  return {
    tenantId: usage.tenant_id,
    messageId: `msg_${usage.usage_id}`,
    payload: {
      type: 'memory.retained',
      timestamp: usage.occurred_at,
      data: {
        memory_id: usage.memory_id,
        event_id: usage.event_id ?? null,
        namespace: usage.namespace,
        user_id: usage.user_id,
        request_id: usage.request_id,
        state: 'retained',
      },
    },
  };
}
