import {
  decodeJson,
  type JsMsg,
  type NatsConnection,
  runDurableConsumer,
  type StreamSettings,
} from '@tm/bus';
import { Consumers, Streams, Subjects, UsageDeadLetter } from '@tm/contracts';
import { isStorageUnavailable, type Logger } from '@tm/kit';
import { countUsageDeadLetter } from '../../domain/count-usage-dead-letter.js';
import { type RecordDeadLetter, type SortedBatch, sortBatch } from '../../domain/sort-request-records.js';
import { storeBatches, storeOneByOne } from '../../domain/store-request-records.js';
import { recordsDeadLettered } from './dead-letter-metrics.js';

const RETRY_MS = 1_000;
/** Deliveries a record may be refused on by itself before it is dead-lettered. */
const MAX_DELIVERIES = 3;

/** A batch's message id (the gateway's, kept across its retries), else its place in the stream. */
const messageIdOf = (msg: JsMsg) => msg.headers?.get('Nats-Msg-Id') || `seq-${msg.seq}`;

/**
 * The gateways' request records: each JetStream message is a batch from one gateway instance. Each
 * record is checked on its own: one that cannot be stored is dead-lettered alone (stored in
 * request_record_dead_letter, counted, an anomaly), and the rest of its batch is stored. A fetch of
 * messages is stored in one statement, then acknowledged; a redelivery is skipped by record id (a
 * dead letter and a drop report by message id), so every request is stored exactly once. A database
 * that is down naks the fetch; any other failure stores its batches record by record.
 */
export function startRequestRecordConsumer(
  nc: NatsConnection,
  deps: { batchSize: number; streamSettings: StreamSettings; logger: Logger },
) {
  const { logger } = deps;

  function deadLettered(letters: RecordDeadLetter[]): void {
    for (const letter of letters) {
      recordsDeadLettered.inc({ kind: letter.kind });
      logger.warn(
        { letter_id: letter.letterId, kind: letter.kind, reason: letter.reason },
        'request record dead-lettered; the rest of its batch is stored',
      );
    }
  }

  async function storeAlone(msg: JsMsg, batch: SortedBatch): Promise<void> {
    try {
      const lastDelivery = msg.info.deliveryCount >= MAX_DELIVERIES;
      const { settled, stored } = await storeOneByOne(batch, lastDelivery);
      deadLettered(stored);
      if (settled) msg.ack();
      else msg.nak(RETRY_MS);
    } catch (err) {
      logger.warn({ err, stream_sequence: msg.seq }, 'request records not stored; redelivering');
      msg.nak(RETRY_MS);
    }
  }

  return runDurableConsumer(nc, {
    stream: Streams.gatewayRequests,
    durable: Consumers.telemetryRequests,
    filterSubject: Subjects.gateway.requestRecorded,
    batchSize: deps.batchSize,
    logger,
    retryMs: RETRY_MS,
    streamSettings: deps.streamSettings,
    handleBatch: async (msgs) => {
      const sorted = msgs.map((msg) => ({ msg, batch: sortBatch(messageIdOf(msg), msg.string()) }));
      try {
        deadLettered(await storeBatches(sorted.map((s) => s.batch)));
        for (const { msg } of sorted) msg.ack();
      } catch (err) {
        if (isStorageUnavailable(err)) {
          logger.warn({ err, messages: msgs.length }, 'request records not stored; redelivering');
          for (const msg of msgs) msg.nak(RETRY_MS);
          return;
        }
        // One record the database will not take must not hold back the rest of the fetch.
        logger.warn(
          { err, messages: msgs.length },
          'request records not stored together; storing one by one',
        );
        for (const { msg, batch } of sorted) await storeAlone(msg, batch);
      }
    },
  });
}

/** Billing's dead letters, counted for the usage-dead-letter anomaly (their payloads are not kept). */
export function startDeadLetterConsumer(
  nc: NatsConnection,
  deps: { streamSettings: StreamSettings; logger: Logger },
) {
  const { logger } = deps;
  return runDurableConsumer(nc, {
    stream: Streams.billingDeadLetters,
    durable: Consumers.telemetryDeadLetters,
    filterSubject: Subjects.billing.usageDeadLetter,
    batchSize: 100,
    logger,
    retryMs: RETRY_MS,
    streamSettings: deps.streamSettings,
    handleBatch: async (msgs) => {
      for (const msg of msgs) {
        try {
          await countUsageDeadLetter(msg.seq, readUsageDeadLetter(msg));
          msg.ack();
        } catch (err) {
          logger.warn({ err }, 'dead letter not counted; redelivering');
          msg.nak(RETRY_MS);
        }
      }
    },
  });
}

/** Billing's dead letter, or undefined when it is unreadable (it is still counted). */
function readUsageDeadLetter(msg: JsMsg): UsageDeadLetter | undefined {
  try {
    const result = UsageDeadLetter.safeParse(decodeJson(msg.data));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}
