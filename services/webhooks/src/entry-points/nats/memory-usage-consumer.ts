import {
  decodeJson,
  type JsMsg,
  type NatsConnection,
  runDurableConsumer,
  type StreamSettings,
} from '@tm/bus';
import { Consumers, Streams, Subjects, UsageRecordedEvent, usageRecordsIn } from '@tm/contracts';
import { isStorageUnavailable, type Logger } from '@tm/kit';
import { fanOut, type TenantEvent } from '../../domain/deliveries/fan-out.js';
import { memoryRetainedEvent } from '../../domain/deliveries/memory-retained.js';

const RETRY_MS = 1_000;

/**
 * `memory.retained` from memory's usage outbox: a durable consumer of its own on MEMORY_USAGE (billing
 * has another; the stream keeps messages by limits, so each sees every record). A fetch's events are
 * queued as deliveries in one statement, then its messages acknowledged; a redelivered message queues
 * nothing new (unique endpoint and message id). What is not a usage record is billing's to dead-letter:
 * here it is acknowledged and skipped. A database failure naks the fetch and it comes back whole.
 */
export function startMemoryUsageConsumer(
  nc: NatsConnection,
  deps: { batchSize: number; streamSettings: StreamSettings; logger: Logger; queued: () => void },
) {
  const { logger } = deps;

  async function handleBatch(msgs: JsMsg[]): Promise<void> {
    const events: TenantEvent[] = [];
    for (const msg of msgs) {
      let records: unknown[] = [];
      try {
        records = usageRecordsIn(decodeJson(msg.data))?.records ?? [];
      } catch {
        // not JSON: billing dead-letters it; nothing here to announce
      }
      for (const record of records) {
        const parsed = UsageRecordedEvent.safeParse(record);
        const event = parsed.success ? memoryRetainedEvent(parsed.data) : undefined;
        if (event) events.push(event);
      }
    }
    try {
      const queued = await fanOut(events);
      for (const msg of msgs) msg.ack();
      if (queued > 0) deps.queued();
    } catch (err) {
      logger.warn(
        { err, events: events.length, storage: isStorageUnavailable(err) },
        'webhook events not queued; redelivering',
      );
      for (const msg of msgs) msg.nak(RETRY_MS);
    }
  }

  return runDurableConsumer(nc, {
    stream: Streams.memoryUsage,
    durable: Consumers.webhooksMemoryUsage,
    filterSubject: Subjects.memory.usageRecorded,
    batchSize: deps.batchSize,
    handleBatch,
    logger,
    retryMs: RETRY_MS,
    streamSettings: deps.streamSettings,
  });
}
