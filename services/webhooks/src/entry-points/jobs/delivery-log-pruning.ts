import { type Logger, type PeriodicTask, startPeriodicTask } from '@tm/kit';
import { pruneDeliveryLog } from '../../domain/deliveries/prune-delivery-log.js';

const HOUR_MS = 3_600_000;

/**
 * Prune the delivery log at start and every hour after, in every instance (a batch another instance
 * deleted first is simply not found). A failed pass is logged and tried again the next hour.
 */
export function startDeliveryLogPruning(retentionDays: number, logger: Logger): PeriodicTask {
  return startPeriodicTask(
    'webhook delivery log pruning',
    HOUR_MS,
    async () => {
      const pruned = await pruneDeliveryLog({ retentionDays });
      if (pruned > 0) logger.info({ pruned, retention_days: retentionDays }, 'old webhook deliveries pruned');
    },
    logger,
  );
}
