import { ImportCompletedEvent } from '@tm/contracts';
import type { TenantEvent } from './fan-out.js';

/** A completed import or restore job as an `import.completed` event: its id, kind, namespace and row counts. */
export function importCompletedEvent(record: unknown): TenantEvent | undefined {
  const parsed = ImportCompletedEvent.safeParse(record);
  if (!parsed.success) return undefined;
  const event = parsed.data;
  return {
    tenantId: event.tenant_id,
    messageId: `msg_${event.event_id}`,
    payload: {
      type: 'import.completed',
      timestamp: event.occurred_at,
      data: {
        import_id: event.import_id,
        kind: event.kind,
        namespace: event.namespace,
        total: event.total,
        retained: event.retained,
        already_present: event.already_present,
        failed: event.failed,
        request_id: event.request_id,
        state: 'completed',
      },
    },
  };
}
