import type { NatsConnection } from '@tm/bus';
import {
  AnomalyReport,
  EventsList,
  EventsListMessage,
  HistoryPage,
  HistoryPageMessage,
  MetricsMessage,
  MetricsSummary,
  Subjects,
  TelemetryWindowMessage,
} from '@tm/contracts';
import { createServiceClient, endpoint, type ServiceClientOptions } from './service-client.js';

const s = Subjects.telemetry;

/** The telemetry service's endpoints (the request history), as the gateway calls them. */
const TELEMETRY_SERVICE = {
  service: 'telemetry',
  ping: s.ping,
  endpoints: {
    events: endpoint(s.listEvents, EventsListMessage, EventsList),
    metrics: endpoint(s.metrics, MetricsMessage, MetricsSummary),
    anomalies: endpoint(s.anomalies, TelemetryWindowMessage, AnomalyReport),
    historyPage: endpoint(s.historyPage, HistoryPageMessage, HistoryPage),
  },
};

/** Typed, breaker-wrapped calls to the telemetry service over NATS request/reply. */
export const createTelemetryClient = (nc: NatsConnection, options: ServiceClientOptions) =>
  createServiceClient(nc, TELEMETRY_SERVICE, options);
export type TelemetryClient = ReturnType<typeof createTelemetryClient>;
