import {
  decodeJson,
  FAILURE_POLICY,
  type JsMsg,
  type NatsConnection,
  runDurableConsumer,
  type StreamSettings,
  settleFetch,
  storeFetch,
} from '@tm/bus';
import { Consumers, Streams, Subjects, UsageDeadLetter } from '@tm/contracts';
import type { Logger } from '@tm/kit';
import { countUsageDeadLetter } from '../../domain/count-usage-dead-letter.js';
import { type RecordDeadLetter, type SortedBatch, sortBatch } from '../../domain/sort-request-records.js';
import { storeBatches, storeOneByOne } from '../../domain/store-request-records.js';
import { recordsDeadLettered } from './dead-letter-metrics.js';

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

  /** One message's records one by one; resolves false when the message must come back. */
  async function storeAlone(part: { batch: SortedBatch }, lastDelivery: boolean): Promise<boolean> {
    const { settled, stored } = await storeOneByOne(part.batch, lastDelivery);
    deadLettered(stored);
    return settled;
  }

  return runDurableConsumer(nc, {
    stream: Streams.gatewayRequests,
    durable: Consumers.telemetryRequests,
    filterSubject: Subjects.gateway.requestRecorded,
    batchSize: deps.batchSize,
    logger,
    streamSettings: deps.streamSettings,
    handleBatch: async (msgs) => {
      const sorted = msgs.map((msg) => ({ msg, batch: sortBatch(messageIdOf(msg), msg.string()) }));
      const unsettled = await storeFetch(sorted, {
        what: 'request records',
        messageOf: (part) => part.msg,
        together: async (parts) => {
          deadLettered(await storeBatches(parts.map((p) => p.batch)));
          return undefined;
        },
        alone: storeAlone,
        logger,
      });
      settleFetch(msgs, unsettled);
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
    streamSettings: deps.streamSettings,
    handleBatch: async (msgs) => {
      for (const msg of msgs) {
        try {
          await countUsageDeadLetter(msg.seq, readUsageDeadLetter(msg));
          msg.ack();
        } catch (err) {
          logger.warn({ err }, 'dead letter not counted; redelivering');
          msg.nak(FAILURE_POLICY.redeliveryDelayMs);
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
