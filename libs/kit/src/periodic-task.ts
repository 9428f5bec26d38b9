import type { Logger } from './logger.js';

export interface PeriodicTask {
  /** Stop the timer and wait for a pass in progress. */
  stop(): Promise<void>;
}

/**
 * Run `pass` now and every `intervalMs` after, one pass at a time (a pass still running when the next
 * is due makes that one skip). A failed pass is logged at warn and tried again at the next interval:
 * housekeeping (pruning old rows) must never take the service down. The timer does not keep the
 * process alive.
 */
export function startPeriodicTask(
  name: string,
  intervalMs: number,
  pass: () => Promise<void>,
  logger: Logger,
): PeriodicTask {
  let current: Promise<void> | undefined;
  const run = () => {
    if (current) return;
    current = pass()
      .catch((err) => logger.warn({ err, task: name }, `${name} failed; trying again at the next interval`))
      .finally(() => {
        current = undefined;
      });
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await current;
    },
  };
}
