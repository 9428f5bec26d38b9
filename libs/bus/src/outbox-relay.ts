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
  /** Must be idempotent per row id (JetStream Nats-Msg-Id dedupe). */
  publish: (row: OutboxRow) => Promise<void>;
  logger: Logger;
  intervalMs?: number;
  batchSize?: number;
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
 * it, so a crash between commit and publish re-sends it on the next pass; the stream's msg-id dedupe
 * and idempotent consumers make that re-send harmless. Several instances may run: same dedupe.
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const intervalMs = options.intervalMs ?? 500;
  const batchSize = options.batchSize ?? 500;
  // Measured at 32 concurrent writes: a 20 ms window made a pass (fetch, publish, remove) of a dozen rows
  // each and cost about a third of the write path's CPU; 200 ms gathers a hundred or more per pass.
  const nudgeDelayMs = options.nudgeDelayMs ?? 200;
  let running: Promise<number> | undefined;
  let again = false;
  let stopped = false;

  /** One fetch-publish-remove cycle; returns how many rows it published. */
  const pass = async (): Promise<number> => {
    const rows = await options.fetchPending(batchSize);
    // Publish the batch concurrently; remove what the bus acknowledged, retry the rest next pass.
    const results = await Promise.allSettled(rows.map((row) => options.publish(row)));
    const done = rows.filter((_, i) => results[i]?.status === 'fulfilled').map((row) => row.id);
    if (done.length) await options.removePublished(done);
    const failed = rows.filter((_, i) => results[i]?.status === 'rejected').map((row) => row.id);
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
