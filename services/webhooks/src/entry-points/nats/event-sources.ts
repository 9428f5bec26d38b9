import { Consumers, Streams, Subjects } from '@tm/contracts';
import { anomalyRaisedEvent } from '../../domain/deliveries/anomaly-raised.js';
import { chargeVoidedEvent } from '../../domain/deliveries/charge-voided.js';
import type { TenantEvent } from '../../domain/deliveries/fan-out.js';
import { importCompletedEvent } from '../../domain/deliveries/import-completed.js';
import { importFailedEvent } from '../../domain/deliveries/import-failed.js';
import { memoryDeletedEvent } from '../../domain/deliveries/memory-deleted.js';
import { memoryRetainedEvent } from '../../domain/deliveries/memory-retained.js';
import { namespaceDeletedEvent } from '../../domain/deliveries/namespace-deleted.js';
import type { EventSource } from './event-consumer.js';

type Mapping = (record: unknown) => TenantEvent | undefined;

/**
 * One durable consumer for a whole owner's stream: each subject's records through its own mapping; a
 * subject with none (an owner's event added before this service maps it) announces nothing.
 */
function ownerEvents(
  stream: { name: string; subjects: readonly string[] },
  durable: string,
  filterSubject: string,
  mappings: Record<string, Mapping>,
): EventSource {
  return {
    stream,
    durable,
    filterSubject,
    toEvent: (record, subject) => mappings[subject]?.(record),
  };
}

/** Where each webhook event type comes from: its owner's stream, read by a durable of this service's. */
export const eventSources: readonly EventSource[] = [
  // memory.retained: a retained write's usage record (memory's usage outbox).
  {
    stream: Streams.memoryUsage,
    durable: Consumers.webhooksMemoryUsage,
    filterSubject: Subjects.memory.usageRecorded,
    toEvent: memoryRetainedEvent,
  },
  // memory's own events (namespace.deleted, memory.deleted).
  ownerEvents(Streams.memoryEvents, Consumers.webhooksMemoryEvents, 'memory.v1.events.>', {
    [Subjects.memory.namespaceDeleted]: namespaceDeletedEvent,
    [Subjects.memory.memoryDeleted]: memoryDeletedEvent,
  }),
  // import.completed / import.failed: finished import and restore jobs (template's outbox).
  ownerEvents(Streams.templateEvents, Consumers.webhooksTemplateEvents, 'template.v1.events.>', {
    [Subjects.template.importCompleted]: importCompletedEvent,
    [Subjects.template.importFailed]: importFailedEvent,
  }),
  // anomaly.raised: the anomaly watch's raises and escalations (telemetry's outbox).
  ownerEvents(Streams.telemetryEvents, Consumers.webhooksTelemetryEvents, Subjects.telemetry.anomalyRaised, {
    [Subjects.telemetry.anomalyRaised]: anomalyRaisedEvent,
  }),
  // charge.voided: voided charges (billing's outbox).
  ownerEvents(Streams.billingEvents, Consumers.webhooksBillingEvents, 'billing.v1.events.>', {
    [Subjects.billing.chargeVoided]: chargeVoidedEvent,
  }),
];
