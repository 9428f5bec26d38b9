import { type NatsConnection, requestReply } from '@tm/bus';
import {
  AnomalyReport,
  EventsList,
  EventsListMessage,
  HistoryPage,
  HistoryPageMessage,
  MetricsSummary,
  PingReply,
  Subjects,
  TelemetryWindowMessage,
} from '@tm/contracts';
import type { Logger } from '@tm/kit';
import { z } from 'zod';
import { createBreaker } from './breaker.js';

/** Typed, breaker-wrapped calls to the telemetry service (the request history) over NATS request/reply. */
export function createTelemetryClient(
  nc: NatsConnection,
  options: { timeoutMs: number; breakerResetMs: number; logger: Logger },
) {
  const { breaker, call } = createBreaker({
    name: 'telemetry',
    resetMs: options.breakerResetMs,
    logger: options.logger,
  });
  const opts = { timeoutMs: options.timeoutMs, service: 'telemetry' };
  const endpoint =
    <I extends z.ZodType, O extends z.ZodType>(subject: string, input: I, output: O) =>
    (msg: z.input<I>) =>
      call(() => requestReply(nc, subject, { input, output }, msg, opts));
  return {
    breaker,
    events: endpoint(Subjects.telemetry.listEvents, EventsListMessage, EventsList),
    metrics: endpoint(Subjects.telemetry.metrics, TelemetryWindowMessage, MetricsSummary),
    anomalies: endpoint(Subjects.telemetry.anomalies, TelemetryWindowMessage, AnomalyReport),
    historyPage: endpoint(Subjects.telemetry.historyPage, HistoryPageMessage, HistoryPage),
    /** Health probe: bypasses the breaker so an open breaker cannot hide a recovered service. */
    ping: (timeoutMs: number) =>
      requestReply(
        nc,
        Subjects.telemetry.ping,
        { input: z.object({}), output: PingReply },
        {},
        { timeoutMs, service: 'telemetry' },
      ),
  };
}
export type TelemetryClient = ReturnType<typeof createTelemetryClient>;
