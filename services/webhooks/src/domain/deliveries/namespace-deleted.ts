import { NamespaceDeletedEvent } from '@tm/contracts';
import { eventMapping } from './event-mapping.js';

/** A finished namespace deletion as a `namespace.deleted` event: the job's id, the name, the count. */
export const namespaceDeletedEvent = eventMapping(NamespaceDeletedEvent, 'namespace.deleted', {
  id: (event) => event.event_id,
  data: (event) => ({
    deletion_id: event.deletion_id,
    namespace: event.namespace,
    records_deleted: event.records_deleted,
    request_id: event.request_id,
    state: 'deleted',
  }),
});
