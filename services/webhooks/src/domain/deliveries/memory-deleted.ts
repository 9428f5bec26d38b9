import { MemoryDeletedEvent } from '@tm/contracts';
import { eventMapping } from './event-mapping.js';

/** A forgotten memory as a `memory.deleted` event: its id, namespace and what is current again. */
export const memoryDeletedEvent = eventMapping(MemoryDeletedEvent, 'memory.deleted', {
  id: (event) => event.event_id,
  data: (event) => ({
    memory_id: event.memory_id,
    namespace: event.namespace,
    reinstated: event.reinstated,
    request_id: event.request_id,
    state: 'deleted',
  }),
});
