import {
  createReindexWorker,
  type ReindexWorker,
  type ReindexWorkerOptions,
} from '../../domain/reindex-worker.js';
import { pollWorker } from './polled-worker.js';

/** The re-index worker, polled every `pollMs` for namespaces with work left. */
export const startReindexWorker = (options: ReindexWorkerOptions & { pollMs: number }): ReindexWorker =>
  pollWorker(createReindexWorker(options), options.pollMs);
