import { UsageRecordedEvent } from '@tm/contracts';
import { eventMapping } from './event-mapping.js';

/**
 * A retained write's usage record as a `memory.retained` event: ids and state only (never text).
 * Recall records, and write records from before they carried the memory id, are not events.
 */
export const memoryRetainedEvent = eventMapping(UsageRecordedEvent, 'memory.retained', {
  id: (usage) => usage.usage_id,
  data: (usage) => {
    if (usage.operation !== 'memory.write' || usage.memory_id === undefined) return undefined;
    return {
      memory_id: usage.memory_id,
      event_id: usage.event_id ?? null,
      namespace: usage.namespace,
      user_id: usage.user_id,
      request_id: usage.request_id,
      state: 'retained',
    };
  },
});
