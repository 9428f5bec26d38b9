import { ImportFailedEvent } from '@tm/contracts';
import { eventMapping } from './event-mapping.js';

/**
 * A job that could not go on as an `import.failed` event: its id, kind, namespace, the rows settled
 * before it stopped and the error's code (its message, which may name the dataset, stays on the
 * status route).
 */
export const importFailedEvent = eventMapping(ImportFailedEvent, 'import.failed', {
  id: (event) => event.event_id,
  data: (event) => ({
    import_id: event.import_id,
    kind: event.kind,
    namespace: event.namespace,
    total: event.total,
    retained: event.retained,
    already_present: event.already_present,
    failed: event.failed,
    error_code: event.error_code,
    request_id: event.request_id,
    state: 'failed',
  }),
});
