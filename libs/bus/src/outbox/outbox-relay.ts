import { createHash } from 'node:crypto';
import type { Logger } from 'pino';

export interface OutboxRow {
  id: string;
  subject: string;
  /** JSON text, published byte for byte. */
  payload: string;
}

export interface OutboxRelayOptions {
  /** Rows that failed fewer times first, then oldest first. */
  fetchPending: (limit: number) => Promise<OutboxRow[]>;
  /** Called only with rows the bus has acknowledged. */
  removePublished: (ids: string[]) => Promise<void>;
  /** Count a failed attempt, so a row that keeps failing queues behind the others instead of blocking them. */
  markFailed: (ids: string[]) => Promise<void>;
  /**
   * Publish rows of one subject as one message. A re-send of rows already published must be harmless:
   * consumers skip records they already hold (a batch re-sent whole is also dropped by msg-id dedupe).
   */
  publishBatch: (subject: string, rows: OutboxRow[]) => Promise<void>;
  logger: Logger;
  intervalMs?: number;
  batchSize?: number;
  /** Payload bytes one published message may carry (NATS refuses messages above its max_payload, 1 MiB by default). */
  maxMessageBytes?: number;
  /** How long a nudge waits for more commits before the pass runs. */
  nudgeDelayMs?: number;
}

export interface OutboxRelay {
  /** Run a pass soon (after a commit) instead of waiting for the next tick. */
  nudge: () => void;
  /** Run passes until nothing is pending (tests, shutdown). */
  flush: () => Promise<void>;
  stop: () => Promise<void>;
}

/**
 * Relay rows committed to an outbox table to the bus. A row is removed only after the bus acknowledged
 * the message carrying it, so a crash between commit and publish re-sends it on the next pass; consumers
 * that skip what they already hold make that re-send harmless. Several instances may run: same reason.
 *
 * A pass publishes its rows as a few messages (one per subject and size chunk), not one per row: one
 * JetStream publish and acknowledgement per row was most of nats-server's CPU per write.
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const intervalMs = options.intervalMs ?? 500;
  const batchSize = options.batchSize ?? 500;
  const maxMessageBytes = options.maxMessageBytes ?? 256 * 1024;
  // Measured at 32 concurrent writes: a 20 ms window made a pass (fetch, publish, remove) of a dozen rows
  // each and cost about a third of the write path's CPU; 200 ms gathers a hundred or more per pass.
  const nudgeDelayMs = options.nudgeDelayMs ?? 200;
  let running: Promise<number> | undefined;
  let again = false;
  let stopped = false;

  /** One fetch-publish-remove cycle; returns how many rows it published. */
  const pass = async (): Promise<number> => {
    const chunks = chunkRows(await options.fetchPending(batchSize), maxMessageBytes);
    // Publish the chunks concurrently; remove what the bus acknowledged, retry the rest next pass.
    const results = await Promise.allSettled(chunks.map((c) => options.publishBatch(c.subject, c.rows)));
    const idsWhere = (status: PromiseSettledResult<void>['status']) =>
      chunks.flatMap((c, i) => (results[i]?.status === status ? c.rows.map((row) => row.id) : []));
    const done = idsWhere('fulfilled');
    if (done.length) await options.removePublished(done);
    const failed = idsWhere('rejected');
    if (failed.length) {
      await options.markFailed(failed);
      const { reason } = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      options.logger.warn({ err: reason, failed: failed.length }, 'outbox rows not published; will retry');
    }
    return done.length;
  };

  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .catch((err) => {
        options.logger.warn({ err }, 'outbox relay pass failed; will retry');
        return 0;
      })
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run();
        }
      });
  };

  const timer = setInterval(run, intervalMs);
  timer.unref();
  run();

  // Commits nudge the relay; gathering the nudges of a short window into one pass keeps a busy
  // service from running a fetch-publish-remove cycle per write.
  let nudged: NodeJS.Timeout | undefined;
  const nudge = () => {
    nudged ??= setTimeout(() => {
      nudged = undefined;
      run();
    }, nudgeDelayMs);
  };

  return {
    nudge,
    /** Publish until a pass publishes nothing more (rows the bus keeps refusing stay pending). */
    flush: async () => {
      for (;;) {
        if (running) await running;
        if ((await pass()) === 0) return;
      }
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      clearTimeout(nudged);
      if (running) await running;
    },
  };
}

/** Rows grouped by subject, in fetch order, each group cut so its payloads stay within `maxBytes`. */
export function chunkRows(
  rows: OutboxRow[],
  maxBytes: number,
): Array<{ subject: string; rows: OutboxRow[] }> {
  const chunks: Array<{ subject: string; rows: OutboxRow[]; bytes: number }> = [];
  const open = new Map<string, { subject: string; rows: OutboxRow[]; bytes: number }>();
  for (const row of rows) {
    const bytes = Buffer.byteLength(row.payload);
    let chunk = open.get(row.subject);
    if (!chunk || (chunk.rows.length > 0 && chunk.bytes + bytes > maxBytes)) {
      chunk = { subject: row.subject, rows: [], bytes: 0 };
      chunks.push(chunk);
      open.set(row.subject, chunk);
    }
    chunk.rows.push(row);
    chunk.bytes += bytes;
  }
  return chunks.map(({ subject, rows }) => ({ subject, rows }));
}

/** The msg id of a message carrying these rows: the same rows re-sent together are stored once. */
export function outboxBatchId(rows: OutboxRow[]): string {
  return createHash('sha256')
    .update(rows.map((row) => row.id).join(','))
    .digest('base64url');
}
