import {
  createDeletionWorker,
  type DeletionWorker,
  type DeletionWorkerOptions,
} from '../../domain/deletion-worker.js';

/**
 * The deletion worker, nudged now and every `intervalMs` after: a job started here nudges it at once,
 * and the tick picks up what no nudge announced (jobs other instances started or a crashed one left,
 * a batch that failed).
 */
export function startDeletionWorker(options: DeletionWorkerOptions & { intervalMs: number }): DeletionWorker {
  const worker = createDeletionWorker(options);
  const timer = setInterval(worker.nudge, options.intervalMs);
  timer.unref();
  worker.nudge();
  return {
    ...worker,
    async stop() {
      clearInterval(timer);
      await worker.stop();
    },
  };
}
