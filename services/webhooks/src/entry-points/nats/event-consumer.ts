import {
  decodeJson,
  FAILURE_POLICY,
  type JsMsg,
  type NatsConnection,
  runDurableConsumer,
  type StreamSettings,
} from '@tm/bus';
import { outboxRecordsIn } from '@tm/contracts';
import { isStorageUnavailable, type Logger } from '@tm/kit';
import { fanOut, type TenantEvent } from '../../domain/deliveries/fan-out.js';

export interface EventSource {
  stream: { name: string; subjects: readonly string[] };
  durable: string;
  filterSubject: string;
  /**
   * One record of a message on `subject` as the event it announces; undefined for a record that
   * announces none.
   */
  toEvent: (record: unknown, subject: string) => TenantEvent | undefined;
}

/**
 * Another service's outbox records, relayed to JetStream in batch messages (`{ version, records }`),
 * become deliveries: a durable consumer of this service's own on the owner's stream (its other
 * consumers, like billing's, see every message too: the streams keep messages by limits). A fetch's
 * events are queued in one statement, then its messages acknowledged; a redelivered message queues
 * nothing new (unique endpoint and message id). A record that announces nothing (a recall's usage, a
 * malformed record: the owner's consumers dead-letter those) is acknowledged and skipped. A database
 * failure naks the fetch and it comes back whole.
 */
export function startEventConsumer(
  nc: NatsConnection,
  source: EventSource,
  deps: { batchSize: number; streamSettings: StreamSettings; logger: Logger; queued: () => void },
) {
  const { logger } = deps;

  async function handleBatch(msgs: JsMsg[]): Promise<void> {
    const events: TenantEvent[] = [];
    for (const msg of msgs) {
      let records: unknown[] = [];
      try {
        records = outboxRecordsIn(decodeJson(msg.data))?.records ?? [];
      } catch {
        // not JSON: nothing here to announce
      }
      for (const record of records) {
        const event = source.toEvent(record, msg.subject);
        if (event) events.push(event);
      }
    }
    try {
      const queued = await fanOut(events);
      for (const msg of msgs) msg.ack();
      if (queued > 0) deps.queued();
    } catch (err) {
      logger.warn(
        { err, events: events.length, storage: isStorageUnavailable(err), durable: source.durable },
        'webhook events not queued; redelivering',
      );
      for (const msg of msgs) msg.nak(FAILURE_POLICY.redeliveryDelayMs);
    }
  }

  return runDurableConsumer(nc, {
    stream: source.stream,
    durable: source.durable,
    filterSubject: source.filterSubject,
    batchSize: deps.batchSize,
    handleBatch,
    logger,
    streamSettings: deps.streamSettings,
  });
}
