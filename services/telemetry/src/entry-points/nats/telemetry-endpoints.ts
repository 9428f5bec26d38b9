import type { Service } from '@tm/bus';
import {
  EventsListMessage,
  HistoryPageMessage,
  MetricsMessage,
  Subjects,
  TelemetryWindowMessage,
} from '@tm/contracts';
import { detectAnomalies } from '../../domain/detect-anomalies.js';
import { listTenantEvents, pageHistory } from '../../domain/list-events.js';
import { summarizeMetrics } from '../../domain/summarize-metrics.js';
import type { AnomalyPolicy } from '../../domain/thresholds.js';

/** The telemetry service's request/reply endpoints (its ping and discovery are the service's own). */
export function serveTelemetryEndpoints(
  service: Service,
  options: { policy: AnomalyPolicy; exactPercentilesUpTo: number },
): void {
  service.endpoint({
    subject: Subjects.telemetry.listEvents,
    input: EventsListMessage,
    handler: listTenantEvents,
  });
  service.endpoint({
    subject: Subjects.telemetry.metrics,
    input: MetricsMessage,
    handler: (m) => summarizeMetrics(m, options),
  });
  service.endpoint({
    subject: Subjects.telemetry.anomalies,
    input: TelemetryWindowMessage,
    handler: (m) => detectAnomalies(m, options.policy, options),
  });
  service.endpoint({
    subject: Subjects.telemetry.historyPage,
    input: HistoryPageMessage,
    handler: pageHistory,
  });
}
