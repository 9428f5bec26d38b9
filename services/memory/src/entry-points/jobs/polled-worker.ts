/** A worker that runs when nudged and finishes its work in hand when stopped. */
interface NudgedWorker {
  nudge(): void;
  stop(): Promise<void>;
}

/**
 * `worker`, nudged now and every `intervalMs` after: a nudge from the request that made work runs it at
 * once, and the tick picks up what no nudge announced (work other instances started, a crashed one left,
 * a batch that failed). Stopping clears the timer, then stops the worker.
 */
export function pollWorker<W extends NudgedWorker>(worker: W, intervalMs: number): W {
  const timer = setInterval(worker.nudge, intervalMs);
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
