import { randomUUID } from 'node:crypto';
import { ensureStream, jetStreamClient, type NatsConnection, publishDurable } from '@tm/bus';
import {
  REQUEST_RECORD_BATCH_MAX,
  type RequestRecord,
  type RequestRecordBatch,
  Streams,
  Subjects,
} from '@tm/contracts';
import type { Logger } from '@tm/kit';

export interface RequestRecorderOptions {
  /** Records held while the bus is unreachable; past it the oldest are dropped and counted. */
  maxBuffered: number;
  /** Pause before trying again after a failed publish. */
  retryMs?: number;
}

/**
 * Publishes request records to JetStream off the request's path: `record` only queues. One publish
 * at a time carries everything queued (up to REQUEST_RECORD_BATCH_MAX records), so under load a
 * message holds many records and at rest it holds one, with no timer in between. While NATS is down
 * the queue holds up to `maxBuffered` records, then drops the oldest and counts them; the count rides
 * on the next batch, so telemetry can report lost records. A batch keeps its message id across
 * retries, so a publish whose acknowledgement was lost is stored once.
 */
export function createRequestRecorder(nc: NatsConnection, logger: Logger, options: RequestRecorderOptions) {
  const js = jetStreamClient(nc);
  const instance = randomUUID();
  const queue: RequestRecord[] = [];
  let sequence = 0;
  let dropped = 0;
  let droppedUnreported = 0;
  let inFlight: { id: string; batch: RequestRecordBatch } | undefined;
  let draining: Promise<void> | undefined;
  let streamReady: Promise<void> | undefined;
  let stopped = false;

  function nextBatch() {
    const records = queue.splice(0, REQUEST_RECORD_BATCH_MAX);
    const batch: RequestRecordBatch = {
      version: 'v1',
      gateway_instance: instance,
      dropped: droppedUnreported,
      records,
    };
    return { id: `${instance}-${++sequence}`, batch };
  }

  async function drain(): Promise<void> {
    while ((inFlight || queue.length > 0) && !stopped) {
      inFlight ??= nextBatch();
      try {
        streamReady ??= ensureStream(nc, Streams.gatewayRequests);
        await streamReady;
        await publishDurable(
          js,
          Subjects.gateway.requestRecorded,
          JSON.stringify(inFlight.batch),
          inFlight.id,
        );
        droppedUnreported -= inFlight.batch.dropped;
        inFlight = undefined;
      } catch (err) {
        streamReady = undefined;
        logger.warn({ err, queued: queue.length }, 'request records not published; will retry');
        await new Promise((resolve) => setTimeout(resolve, options.retryMs ?? 1_000).unref());
      }
    }
  }

  return {
    record(record: RequestRecord): void {
      if (stopped) return;
      queue.push(record);
      if (queue.length + (inFlight?.batch.records.length ?? 0) > options.maxBuffered) {
        queue.shift();
        dropped++;
        droppedUnreported++;
      }
      draining ??= drain().finally(() => {
        draining = undefined;
      });
    },
    /** Records dropped because the buffer was full (since start). */
    get dropped() {
      return dropped;
    },
    /** Records waiting to be published, the batch in flight included. */
    get queued() {
      return queue.length + (inFlight?.batch.records.length ?? 0);
    },
    /** Try to publish what is queued (bounded by `timeoutMs`), then stop taking records. */
    async stop(timeoutMs = 2_000): Promise<void> {
      if (draining) await Promise.race([draining, new Promise((r) => setTimeout(r, timeoutMs).unref())]);
      stopped = true;
    },
  };
}
export type RequestRecorder = ReturnType<typeof createRequestRecorder>;
