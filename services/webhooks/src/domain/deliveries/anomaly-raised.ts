import { AnomalyRaisedEvent } from '@tm/contracts';
import type { TenantEvent } from './fan-out.js';

/**
 * A tenant's anomaly the watch raised (or escalated to critical) as an `anomaly.raised` event: the
 * episode's id, the signal, its severity and the measurement against the threshold crossed.
 */
export function anomalyRaisedEvent(record: unknown): TenantEvent | undefined {
  const parsed = AnomalyRaisedEvent.safeParse(record);
  if (!parsed.success) return undefined;
  const event = parsed.data;
  return {
    tenantId: event.tenant_id,
    messageId: `msg_${event.event_id}`,
    payload: {
      type: 'anomaly.raised',
      timestamp: event.occurred_at,
      data: {
        anomaly_id: event.anomaly_id,
        name: event.name,
        severity: event.severity,
        observed: event.observed,
        threshold: event.threshold,
        unit: event.unit,
        window_minutes: event.window_minutes,
        state: 'raised',
      },
    },
  };
}
