import { ImportCompletedEvent } from '@tm/contracts';
import { eventMapping } from './event-mapping.js';

/** A completed import or restore job as an `import.completed` event: its id, kind, namespace and row counts. */
export const importCompletedEvent = eventMapping(ImportCompletedEvent, 'import.completed', {
  id: (event) => event.event_id,
  data: (event) => ({
    import_id: event.import_id,
    kind: event.kind,
    namespace: event.namespace,
    total: event.total,
    retained: event.retained,
    already_present: event.already_present,
    failed: event.failed,
    request_id: event.request_id,
    state: 'completed',
  }),
});
