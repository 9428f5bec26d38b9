import type { Logger } from '@tm/kit';
import { poolRunner } from '@tm/kit';
import type pg from 'pg';
import { type BatchSizes, runDeletionBatch } from '../data-access/namespace-deletion.js';
import { createDeletingScopes } from './deleting-scopes.js';

export interface DeletionWorker {
  /** A job was started: run batches now rather than at the next tick. */
  nudge(): void;
  /** Resolves when this instance completes the job, or after `ms`, whichever is first. */
  waitFor(jobId: string, ms: number): Promise<void>;
  /** Refuse writes to this namespace from now on (its deletion has just started here). */
  hide(tenantId: string, namespace: string): void;
  /** Is a write to this namespace to be refused (its deletion still running)? */
  refusesWrites(tenantId: string, namespace: string): Promise<boolean>;
  /** Finish the batch in flight (it commits) and run no more. */
  stop(): Promise<void>;
}

export interface DeletionWorkerOptions {
  pool: () => pg.Pool;
  sizes: BatchSizes;
  logger: Logger;
}

/**
 * The memory service's deletion worker: whenever it is nudged (when a job starts, and by its poller,
 * entry-points/jobs/deletion-poller.ts, which also picks up jobs a stopped or crashed instance left),
 * it runs batches (namespace-deletion.ts) back to back until none is left. Jobs are taken one batch at
 * a time, least recently advanced first, so several jobs share the worker and several instances share
 * the jobs. A failed batch rolls back alone and is tried again at the next nudge.
 */
export function createDeletionWorker(options: DeletionWorkerOptions): DeletionWorker {
  const { logger, sizes } = options;
  const scopes = createDeletingScopes();
  const waiters = new Map<string, Set<() => void>>();
  let running: Promise<void> | undefined;
  let again = false;
  let stopping = false;

  const drain = async () => {
    await scopes.refresh(poolRunner(options.pool()));
    while (!stopping) {
      const batch = await runDeletionBatch(options.pool(), sizes);
      if (!batch) return;
      if (batch.completed) {
        logger.info({ deletion_id: batch.id }, 'namespace deletion completed');
        for (const resolve of waiters.get(batch.id) ?? []) resolve();
        waiters.delete(batch.id);
      }
    }
  };
  const kick = () => {
    if (stopping) return;
    if (running) {
      again = true;
      return;
    }
    running = drain()
      .catch((err) => logger.warn({ err }, 'namespace deletion batch failed; trying again at the next tick'))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          kick();
        }
      });
  };
  return {
    nudge: kick,
    waitFor: (jobId, ms) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timeout);
          waiters.get(jobId)?.delete(done);
          resolve();
        };
        const timeout = setTimeout(done, ms);
        const set = waiters.get(jobId) ?? new Set();
        set.add(done);
        waiters.set(jobId, set);
        kick();
      }),
    hide: scopes.add,
    refusesWrites: (tenantId, namespace) => scopes.refuses(poolRunner(options.pool()), tenantId, namespace),
    async stop() {
      stopping = true;
      await running;
      for (const set of waiters.values()) for (const resolve of set) resolve();
      waiters.clear();
    },
  };
}
