import { NamespaceDeletedEvent } from '@tm/contracts';
import type { TenantEvent } from './fan-out.js';

/** A finished namespace deletion as a `namespace.deleted` event: the job's id, the name, the count. */
export function namespaceDeletedEvent(record: unknown): TenantEvent | undefined {
  const parsed = NamespaceDeletedEvent.safeParse(record);
  if (!parsed.success) return undefined;
  const event = parsed.data;
  return {
    tenantId: event.tenant_id,
    messageId: `msg_${event.event_id}`,
    payload: {
      type: 'namespace.deleted',
      timestamp: event.occurred_at,
      data: {
        deletion_id: event.deletion_id,
        namespace: event.namespace,
        records_deleted: event.records_deleted,
        request_id: event.request_id,
        state: 'deleted',
      },
    },
  };
}
