import { type Logger, startPeriodicTask } from '@tm/kit';
import { pruneHistory } from '../../domain/prune-history.js';

const HOUR_MS = 60 * 60 * 1000;

/** Prune at start and every hour after; a failed pass is logged and tried again next hour. */
export function startRetention(retentionDays: number, logger: Logger) {
  return startPeriodicTask(
    'request record pruning',
    HOUR_MS,
    async () => {
      const n = await pruneHistory(retentionDays);
      if (n > 0) logger.info({ pruned: n, retention_days: retentionDays }, 'old request records pruned');
    },
    logger,
  );
}
