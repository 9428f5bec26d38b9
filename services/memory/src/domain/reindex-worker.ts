import type { Logger } from '@tm/kit';
import type pg from 'pg';
import {
  type ReindexProgress,
  type ReindexSizes,
  reindexProgress,
  runReindexBatch,
} from '../data-access/namespace-reindex.js';
import { tokenize } from './tokenize.js';

/** Progress is read again at most this often while batches run (one scan of memory_reindex). */
const PROGRESS_EVERY_MS = 1_000;

export interface ReindexWorker {
  /** Run batches now, unless they are running already. */
  nudge(): void;
  /** The progress last read (health reports it without waiting on the database); undefined: none. */
  progress(): ReindexProgress | undefined;
  /** Finish the batch in flight (it commits) and run no more. */
  stop(): Promise<void>;
}

export interface ReindexWorkerOptions {
  pool: () => pg.Pool;
  sizes: ReindexSizes;
  logger: Logger;
}

/**
 * The memory service's re-index worker: whenever a namespace written before the stemmed index has
 * work left (its poller, entry-points/jobs/reindex-poller.ts, nudges it to look), it runs batches
 * (namespace-reindex.ts) back to back until none has. Namespaces are taken one batch at a time, least
 * recently advanced first, so several share the worker and several instances share them. A failed
 * batch rolls back alone and is tried again at the next nudge; a stopped instance's namespace is taken
 * up by the next batch anywhere, from its cursor.
 */
export function createReindexWorker(options: ReindexWorkerOptions): ReindexWorker {
  const { logger, sizes } = options;
  let running: Promise<void> | undefined;
  let stopping = false;
  let progress: ReindexProgress | undefined;
  let progressAt = 0;

  const readProgress = async () => {
    progress = await reindexProgress(options.pool());
    progressAt = Date.now();
  };
  const drain = async () => {
    await readProgress();
    while (!stopping) {
      const batch = await runReindexBatch(options.pool(), sizes, tokenize);
      if (!batch) break;
      if (batch.status !== batch.from && batch.status !== 'indexing') {
        logger.info(
          { tenant_id: batch.tenantId, namespace: batch.namespace, status: batch.status },
          batch.status === 'cleaning'
            ? 'namespace re-indexed: recall ranks it by stems; removing its old postings'
            : 'namespace re-index completed',
        );
      }
      if (Date.now() - progressAt >= PROGRESS_EVERY_MS) await readProgress();
    }
    await readProgress();
  };
  const kick = () => {
    if (stopping || running) return;
    running = drain()
      .catch((err) => logger.warn({ err }, 're-index batch failed; trying again at the next tick'))
      .finally(() => {
        running = undefined;
      });
  };
  return {
    nudge: kick,
    progress: () => progress,
    async stop() {
      stopping = true;
      await running;
    },
  };
}
