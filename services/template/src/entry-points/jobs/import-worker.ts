import { AppError } from '@tm/contracts';
import type { Logger } from '@tm/kit';
import type { WriteMemory } from '../../clients/memory-writer.js';
import { findProcessingJobs, type ImportJobRecord } from '../../data-access/import-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { type DatasetRowDeps, fetchDatasetRows } from '../../domain/imports/hub/fetch-dataset-rows.js';
import { processImportBatch } from '../../domain/imports/process-import-batch.js';

export interface ImportWorker {
  /** A job was started: look now rather than at the next poll. */
  nudge: () => void;
  /** Finish the batch in hand, then stop. */
  stop: () => Promise<void>;
}

/**
 * Runs the jobs in `processing`, a batch of rows at a time, round-robin across jobs. Progress lives in
 * the rows, so a restarted service simply carries on: every job still in `processing` is resumed, and
 * rows written but not yet marked are sent again under their idempotency key and replayed by the
 * memory service. Two instances working one job send some rows twice; replays make that harmless.
 */
export function startImportWorker(
  deps: {
    writeMemory: WriteMemory;
    pollMs: number;
    batchSize: number;
    concurrency: number;
    /** Where a dataset import's rows come from ([P13]). */
    datasets: Omit<DatasetRowDeps, 'batchSize'>;
  },
  logger: Logger,
): ImportWorker {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  async function pass(): Promise<void> {
    let worked = true;
    while (worked && !stopped) {
      worked = false;
      for (const job of await findProcessingJobs(getPrisma())) {
        if (stopped) return;
        if (await runBatch(job)) worked = true;
      }
    }
  }

  /** One batch of a job; a dataset job reads its next rows from the hub first. */
  async function runBatch(job: ImportJobRecord): Promise<boolean> {
    if (job.datasetId !== null) {
      try {
        if (!(await fetchDatasetRows(job, { ...deps.datasets, batchSize: deps.batchSize }))) return false;
      } catch (err) {
        if (!(err instanceof AppError && err.retryable)) throw err;
        // the hub is out: this job waits for the next poll, the others go on
        logger.warn({ err, import_id: job.id, code: err.code }, 'model hub unavailable; import waits');
        return false;
      }
    }
    return processImportBatch(job, deps);
  }

  function schedule(delayMs: number) {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(run, delayMs);
  }

  function run() {
    if (running || stopped) return;
    running = pass()
      .catch((err: unknown) => logger.warn({ err }, 'import worker pass failed; retrying'))
      .finally(() => {
        running = undefined;
        schedule(deps.pollMs);
      });
  }

  schedule(0);
  return {
    nudge: () => {
      if (!running) schedule(0);
    },
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
