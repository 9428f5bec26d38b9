import { AppError } from '@tm/contracts';
import type { Logger } from '@tm/kit';
import type { WriteMemory } from '../../clients/memory-writer.js';
import type { PrismaClient } from '../../data-access/generated/client.js';
import { findProcessingJobs, type ImportJobRecord } from '../../data-access/import-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { processRestoreBatch } from '../restores/process-restore-batch.js';
import { type DatasetRowDeps, fetchDatasetRows } from './hub/fetch-dataset-rows.js';
import { processImportBatch } from './process-import-batch.js';
import { whileJobProcessing } from './while-job-processing.js';

export interface ImportRoundDeps {
  writeMemory: WriteMemory;
  batchSize: number;
  concurrency: number;
  /** Where a dataset import's rows come from. */
  datasets: Omit<DatasetRowDeps, 'batchSize' | 'onCommitted'>;
  /** A job ended and its event is in the outbox: the relay's nudge. */
  onCommitted?: () => void;
}

/**
 * One round over the jobs in `processing`, oldest started first: a batch of rows of each, so jobs
 * share the worker round-robin. Returns whether any job made progress (the worker then goes round
 * again); `stopped` is asked before each job, and a round cut short by it returns at once.
 */
export async function runImportRound(
  deps: ImportRoundDeps,
  logger: Logger,
  stopped: () => boolean,
  db = getPrisma(),
): Promise<boolean> {
  let worked = false;
  for (const job of await findProcessingJobs(db)) {
    if (stopped()) return worked;
    if (await runBatch(job, deps, logger, db)) worked = true;
  }
  return worked;
}

/** One batch of a job; a dataset job reads its next rows from the hub first; a restore writes its records. */
async function runBatch(
  job: ImportJobRecord,
  deps: ImportRoundDeps,
  logger: Logger,
  db: PrismaClient,
): Promise<boolean> {
  if (job.kind === 'restore')
    return whileJobProcessing(job, db, () => processRestoreBatch(job, deps, db), BATCH_TIMEOUT_MS);
  if (job.datasetId !== null) {
    try {
      const rowDeps = { ...deps.datasets, batchSize: deps.batchSize, onCommitted: deps.onCommitted };
      if (!(await fetchDatasetRows(job, rowDeps, db))) return false;
    } catch (err) {
      if (!(err instanceof AppError && err.retryable)) throw err;
      // the hub is out: this job waits for the next poll, the others go on
      logger.warn({ err, import_id: job.id, code: err.code }, 'model hub unavailable; import waits');
      return false;
    }
  }
  return whileJobProcessing(job, db, () => processImportBatch(job, deps, db), BATCH_TIMEOUT_MS);
}

/**
 * A batch's writes into its namespace hold the namespace fence's shared lock (whileJobProcessing), so a
 * namespace deletion waits for them and none starts after it. The rows are settled outside that
 * transaction, as they go. Its longest hold: IMPORT_BATCH_SIZE rows (200), IMPORT_CONCURRENCY (16) at a
 * time, each write within MEMORY_WRITE_TIMEOUT_MS (2.5 s) at worst is 32 s.
 */
const BATCH_TIMEOUT_MS = 5 * 60_000;
