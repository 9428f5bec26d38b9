import { ImportFailedEvent } from '@tm/contracts';
import type { TenantEvent } from './fan-out.js';

/**
 * A job that could not go on as an `import.failed` event: its id, kind, namespace, the rows settled
 * before it stopped and the error's code (its message, which may name the dataset, stays on the
 * status route).
 */
export function importFailedEvent(record: unknown): TenantEvent | undefined {
  const parsed = ImportFailedEvent.safeParse(record);
  if (!parsed.success) return undefined;
  const event = parsed.data;
  return {
    tenantId: event.tenant_id,
    messageId: `msg_${event.event_id}`,
    payload: {
      type: 'import.failed',
      timestamp: event.occurred_at,
      data: {
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
      },
    },
  };
}
