import type { Logger } from '@tm/kit';
import { type ImportRoundDeps, runImportRound } from '../../domain/imports/run-import-round.js';

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
export function startImportWorker(deps: ImportRoundDeps & { pollMs: number }, logger: Logger): ImportWorker {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  /** Round after round while some job makes progress; then the next poll. */
  async function pass(): Promise<void> {
    let worked = true;
    while (worked && !stopped) worked = await runImportRound(deps, logger, () => stopped);
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
