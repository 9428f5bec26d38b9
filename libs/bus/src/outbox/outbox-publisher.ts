import type { NatsConnection } from '@nats-io/transport-node';
import { outboxBatchText } from '@tm/contracts';
import type { SqlRunner } from '@tm/kit';
import type { Logger } from 'pino';
import { watchOutbox } from '../jetstream/backlog-metrics.js';
import { ensureStream, jetStreamClient, publishDurable, type StreamSettings } from '../jetstream/streams.js';
import { type OutboxRelay, outboxBatchId, startOutboxRelay } from './outbox-relay.js';
import {
  countPendingOutbox,
  fetchPendingOutbox,
  markOutboxFailed,
  removePublishedOutbox,
} from './outbox-table.js';

export interface OutboxPublisherOptions {
  /** The backlog metric's label (`tm_outbox_backlog{outbox=…}`). */
  name: string;
  /** Statements on the service's pool (read when each runs: the pool may be replaced in tests). */
  sql: () => SqlRunner;
  intervalMs?: number;
  logger: Logger;
  /**
   * Streams the subjects fall in, ensured before the first publish (and again after a failed try)
   * rather than at start: a service whose outbox is not on its request path starts without JetStream,
   * as its consumers do, and its rows wait in the table meanwhile.
   */
  ensure?: {
    streams: ReadonlyArray<{ name: string; subjects: readonly string[] }>;
    settings: StreamSettings;
  };
}

/**
 * A service's `outbox_message` table relayed to JetStream (outbox-relay.ts): each pass's rows of one
 * subject in one OutboxBatch message, its msg-id derived from the row ids so a re-sent batch is stored
 * once; the backlog reported as a metric until `stop`.
 */
export function startOutboxPublisher(nc: NatsConnection, options: OutboxPublisherOptions): OutboxRelay {
  const js = jetStreamClient(nc);
  const { ensure } = options;
  let streamsReady: Promise<void> | undefined;
  const ensureStreams = async () => {
    if (!ensure) return;
    streamsReady ??= (async () => {
      for (const stream of ensure.streams) await ensureStream(nc, stream, ensure.settings);
    })().catch((err: unknown) => {
      streamsReady = undefined; // the next pass tries again
      throw err;
    });
    await streamsReady;
  };
  const relay = startOutboxRelay({
    fetchPending: (limit) => fetchPendingOutbox(options.sql(), limit),
    removePublished: (ids) => removePublishedOutbox(options.sql(), ids),
    markFailed: (ids) => markOutboxFailed(options.sql(), ids),
    publishBatch: async (subject, rows) => {
      await ensureStreams();
      const text = outboxBatchText(rows.map((row) => row.payload));
      await publishDurable(js, subject, text, outboxBatchId(rows));
    },
    intervalMs: options.intervalMs,
    logger: options.logger,
  });
  const unwatch = watchOutbox(options.name, () => countPendingOutbox(options.sql()));
  return {
    ...relay,
    stop: async () => {
      await relay.stop();
      unwatch();
    },
  };
}
