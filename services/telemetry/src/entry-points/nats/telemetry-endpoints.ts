import { randomUUID } from 'node:crypto';
import { type NatsConnection, type Subscription, serveEndpoint } from '@tm/bus';
import {
  EventsListMessage,
  HistoryPageMessage,
  MetricsMessage,
  QueueGroups,
  type ServiceSelfReport,
  Subjects,
  TelemetryWindowMessage,
} from '@tm/contracts';
import { type Logger, storageOutage } from '@tm/kit';
import { z } from 'zod';
import { detectAnomalies } from '../../domain/detect-anomalies.js';
import { listTenantEvents, pageHistory } from '../../domain/list-events.js';
import { summarizeMetrics } from '../../domain/summarize-metrics.js';
import type { AnomalyPolicy } from '../../domain/thresholds.js';

const instance = randomUUID();

export function serveTelemetryEndpoints(
  nc: NatsConnection,
  options: {
    policy: AnomalyPolicy;
    version: string;
    exactPercentilesUpTo: number;
    health: () => Promise<ServiceSelfReport>;
  },
  logger: Logger,
): Subscription[] {
  const common = { queue: QueueGroups.telemetry, mapError: storageOutage('Telemetry storage') };
  return [
    serveEndpoint(
      nc,
      {
        ...common,
        subject: Subjects.telemetry.listEvents,
        input: EventsListMessage,
        handler: listTenantEvents,
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        ...common,
        subject: Subjects.telemetry.metrics,
        input: MetricsMessage,
        handler: (m) => summarizeMetrics(m, options),
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        ...common,
        subject: Subjects.telemetry.anomalies,
        input: TelemetryWindowMessage,
        handler: (m) => detectAnomalies(m, options.policy, options),
      },
      logger,
    ),
    serveEndpoint(
      nc,
      { ...common, subject: Subjects.telemetry.historyPage, input: HistoryPageMessage, handler: pageHistory },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        ...common,
        subject: Subjects.telemetry.ping,
        input: z.unknown(),
        handler: async () => ({
          service: 'telemetry',
          instance,
          version: options.version,
          ...(await options.health()),
        }),
      },
      logger,
    ),
  ];
}
