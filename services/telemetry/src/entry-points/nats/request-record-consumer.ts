import { type JsMsg, type NatsConnection, runDurableConsumer, type StreamSettings } from '@tm/bus';
import { Consumers, RequestRecordBatch, Streams, Subjects, UsageDeadLetter } from '@tm/contracts';
import type { Logger } from '@tm/kit';
import { getSql } from '../../data-access/prisma-client.js';
import {
  insertDeadLetter,
  insertDropReport,
  insertRecords,
} from '../../data-access/request-record-repository.js';

const RETRY_MS = 1_000;

/** JSON that matches `schema`, or undefined (a poison message is logged and settled, never retried forever). */
function parse<T>(
  msg: JsMsg,
  schema: { safeParse: (v: unknown) => { success: boolean; data?: T } },
): T | undefined {
  try {
    const result = schema.safeParse(msg.json());
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The gateways' request records: each JetStream message is a batch from one gateway instance. A fetch
 * of messages is stored in one statement, then acknowledged; a redelivery is skipped by record id (and
 * a drop report by message id), so every request is stored exactly once.
 */
export function startRequestRecordConsumer(
  nc: NatsConnection,
  deps: { batchSize: number; streamSettings: StreamSettings; logger: Logger },
) {
  const { logger } = deps;
  return runDurableConsumer(nc, {
    stream: Streams.gatewayRequests,
    durable: Consumers.telemetryRequests,
    filterSubject: Subjects.gateway.requestRecorded,
    batchSize: deps.batchSize,
    logger,
    retryMs: RETRY_MS,
    streamSettings: deps.streamSettings,
    handleBatch: async (msgs) => {
      const batches: Array<{ msg: JsMsg; batch: RequestRecordBatch }> = [];
      for (const msg of msgs) {
        const batch = parse(msg, RequestRecordBatch);
        if (batch) batches.push({ msg, batch });
        else {
          logger.error({ stream_sequence: msg.seq }, 'not a request record batch; discarded');
          msg.term();
        }
      }
      try {
        const run = getSql();
        await insertRecords(
          run,
          batches.flatMap(({ batch }) =>
            batch.records.map((record) => ({ record, gatewayInstance: batch.gateway_instance })),
          ),
        );
        for (const { msg, batch } of batches) {
          if (batch.dropped > 0) {
            await insertDropReport(run, {
              messageId: msg.headers?.get('Nats-Msg-Id') || `seq-${msg.seq}`,
              gatewayInstance: batch.gateway_instance,
              dropped: batch.dropped,
            });
          }
        }
        for (const { msg } of batches) msg.ack();
      } catch (err) {
        logger.warn({ err, messages: batches.length }, 'request records not stored; redelivering');
        for (const { msg } of batches) msg.nak(RETRY_MS);
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
        const letter = parse(msg, UsageDeadLetter);
        try {
          await insertDeadLetter(getSql(), {
            streamSequence: msg.seq,
            reason: letter?.reason ?? 'unreadable dead letter',
            deadLetteredAt: letter?.dead_lettered_at ?? new Date().toISOString(),
          });
          msg.ack();
        } catch (err) {
          logger.warn({ err }, 'dead letter not counted; redelivering');
          msg.nak(RETRY_MS);
        }
      }
    },
  });
}
