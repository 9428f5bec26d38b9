import {
  createReindexWorker,
  type ReindexWorker,
  type ReindexWorkerOptions,
} from '../../domain/reindex-worker.js';

/** The re-index worker, nudged now and every `pollMs` after to look for namespaces with work left. */
export function startReindexWorker(options: ReindexWorkerOptions & { pollMs: number }): ReindexWorker {
  const worker = createReindexWorker(options);
  const timer = setInterval(worker.nudge, options.pollMs);
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
