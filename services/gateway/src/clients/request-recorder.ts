import { randomUUID } from 'node:crypto';
import {
  ensureStream,
  jetStreamClient,
  type NatsConnection,
  publishDurable,
  type StreamSettings,
} from '@tm/bus';
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
  /** Copies and limits of the stream (JETSTREAM_*). */
  streamSettings: StreamSettings;
}

/**
 * Publishes request records to JetStream off the request's path: `record` only queues. One publish
 * at a time carries everything queued (up to REQUEST_RECORD_BATCH_MAX records), so under load a
 * message holds many records and at rest it holds one, with no timer in between. While NATS is down
 * the queue keeps the newest `maxBuffered` records (plus the batch being tried), dropping and counting
 * the oldest; the count rides on the next batch, so telemetry can report lost records. A failed batch
 * goes back to the head of the queue; telemetry stores each record once by its id, so a publish
 * whose acknowledgement was lost costs nothing twice.
 */
export function createRequestRecorder(nc: NatsConnection, logger: Logger, options: RequestRecorderOptions) {
  const js = jetStreamClient(nc);
  const instance = randomUUID();
  const queue: RequestRecord[] = [];
  let sequence = 0;
  let sending = 0;
  let dropped = 0;
  let droppedUnreported = 0;
  let draining: Promise<void> | undefined;
  let streamReady: Promise<void> | undefined;
  let stopped = false;

  /** Keep the newest `maxBuffered` records waiting; count what goes. */
  function trim(): void {
    const excess = queue.length - options.maxBuffered;
    if (excess <= 0) return;
    queue.splice(0, excess);
    dropped += excess;
    droppedUnreported += excess;
  }

  async function drain(): Promise<void> {
    while (queue.length > 0 && !stopped) {
      const records = queue.splice(0, REQUEST_RECORD_BATCH_MAX);
      const batch: RequestRecordBatch = {
        version: 'v1',
        gateway_instance: instance,
        dropped: droppedUnreported,
        records,
      };
      sending = records.length;
      try {
        streamReady ??= ensureStream(nc, Streams.gatewayRequests, options.streamSettings);
        await streamReady;
        await publishDurable(
          js,
          Subjects.gateway.requestRecorded,
          JSON.stringify(batch),
          `${instance}-${++sequence}`,
        );
        droppedUnreported -= batch.dropped;
        sending = 0;
      } catch (err) {
        sending = 0;
        // Back in line, oldest first, and the cap applies to them too. If the publish did reach the
        // stream after all, telemetry skips the records it already holds (by record id).
        queue.unshift(...records);
        trim();
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
      trim();
      draining ??= drain().finally(() => {
        draining = undefined;
      });
    },
    /** Records dropped because the buffer was full (since start). */
    get dropped() {
      return dropped;
    },
    /** Records waiting to be published, the batch being sent included. */
    get queued() {
      return queue.length + sending;
    },
    /** Try to publish what is queued (bounded by `timeoutMs`), then stop taking records. */
    async stop(timeoutMs = 2_000): Promise<void> {
      if (draining) await Promise.race([draining, new Promise((r) => setTimeout(r, timeoutMs).unref())]);
      stopped = true;
    },
  };
}
export type RequestRecorder = ReturnType<typeof createRequestRecorder>;
