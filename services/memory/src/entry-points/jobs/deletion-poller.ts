import {
  createDeletionWorker,
  type DeletionWorker,
  type DeletionWorkerOptions,
} from '../../domain/deletion-worker.js';
import { pollWorker } from './polled-worker.js';

/** The deletion worker, polled every `intervalMs` for jobs no nudge announced. */
export const startDeletionWorker = (
  options: DeletionWorkerOptions & { intervalMs: number },
): DeletionWorker => pollWorker(createDeletionWorker(options), options.intervalMs);
