import { AnomalyRaisedEvent } from '@tm/contracts';
import { eventMapping } from './event-mapping.js';

/**
 * A tenant's anomaly the watch raised (or escalated to critical) as an `anomaly.raised` event: the
 * episode's id, the signal, its severity and the measurement against the threshold crossed.
 */
export const anomalyRaisedEvent = eventMapping(AnomalyRaisedEvent, 'anomaly.raised', {
  id: (event) => event.event_id,
  data: (event) => ({
    anomaly_id: event.anomaly_id,
    name: event.name,
    severity: event.severity,
    observed: event.observed,
    threshold: event.threshold,
    unit: event.unit,
    window_minutes: event.window_minutes,
    state: 'raised',
  }),
});
