import { type Logger, startPeriodicTask } from '@tm/kit';
import { runAnomalyWatch } from '../../domain/run-anomaly-watch.js';
import type { AnomalyWatchOptions } from '../../domain/watch-anomalies.js';

/**
 * The anomaly watch's loop: a pass every `intervalMs` on every instance, of which one at a time runs
 * (the others find the lock taken and skip). A pass that raised anything nudges the outbox relay.
 */
export function startAnomalyWatch(
  options: AnomalyWatchOptions & { intervalMs: number; onCommitted: () => void },
  logger: Logger,
) {
  return startPeriodicTask(
    'anomaly watch',
    options.intervalMs,
    async () => {
      const changed = await runAnomalyWatch(options);
      if (!changed) return;
      if (changed.raised + changed.escalated > 0) options.onCommitted();
      if (changed.raised + changed.escalated + changed.cleared > 0) logger.info(changed, 'anomalies changed');
    },
    logger,
  );
}
