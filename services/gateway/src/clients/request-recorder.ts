import { ensureStream, jetStreamClient, type NatsConnection, publishDurable } from '@tm/bus';
import { type RequestRecord, Streams, Subjects } from '@tm/contracts';
import type { Logger } from '@tm/kit';

export interface RequestRecorderOptions {
  /** Records held while the bus is unreachable; past it the oldest are dropped and counted. */
  maxBuffered: number;
  /** Pause before trying again after a failed publish. */
  retryMs?: number;
}

/**
 * Publishes request records to JetStream off the request's path: `record` only queues. While NATS
 * is down the queue holds up to `maxBuffered` records, then drops the oldest and counts them (the
 * count is what monitoring reports). The request id is the message id, so a record re-sent after an
 * unacknowledged publish is stored once.
 */
export function createRequestRecorder(nc: NatsConnection, logger: Logger, options: RequestRecorderOptions) {
  const js = jetStreamClient(nc);
  const queue: RequestRecord[] = [];
  let dropped = 0;
  let draining: Promise<void> | undefined;
  let streamReady: Promise<void> | undefined;
  let stopped = false;

  async function drain(): Promise<void> {
    while (queue.length > 0 && !stopped) {
      const record = queue[0] as RequestRecord;
      try {
        streamReady ??= ensureStream(nc, Streams.gatewayRequests);
        await streamReady;
        await publishDurable(js, Subjects.gateway.requestRecorded, JSON.stringify(record), record.request_id);
        queue.shift();
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
      if (queue.length > options.maxBuffered) {
        queue.shift();
        dropped++;
      }
      draining ??= drain().finally(() => {
        draining = undefined;
      });
    },
    /** Records dropped because the queue was full (since start). */
    get dropped() {
      return dropped;
    },
    get queued() {
      return queue.length;
    },
    /** Try to publish what is queued (bounded by `timeoutMs`), then stop taking records. */
    async stop(timeoutMs = 2_000): Promise<void> {
      if (draining) await Promise.race([draining, new Promise((r) => setTimeout(r, timeoutMs).unref())]);
      stopped = true;
    },
  };
}
export type RequestRecorder = ReturnType<typeof createRequestRecorder>;
