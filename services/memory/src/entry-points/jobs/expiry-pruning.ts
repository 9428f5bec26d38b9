import { type Logger, type PeriodicTask, startPeriodicTask } from '@tm/kit';
import { pruneExpiredRecords } from '../../domain/prune-expired-records.js';

/**
 * Prune idempotency entries, tombstones and deletion receipts past their retention at start and every
 * `intervalMs` after, in every instance; a failed pass is logged and tried again at the next.
 */
export function startExpiryPruning(
  options: { intervalMs: number; idempotencyHours: number; receiptHours: number },
  logger: Logger,
): PeriodicTask {
  return startPeriodicTask(
    'idempotency entry pruning',
    options.intervalMs,
    async () => {
      const pruned = await pruneExpiredRecords(options);
      if (pruned.entries > 0)
        logger.info(
          { pruned: pruned.entries, retention_hours: options.idempotencyHours },
          'expired idempotency entries pruned',
        );
      if (pruned.tombstones > 0)
        logger.info({ pruned: pruned.tombstones }, 'forgotten memories’ tombstones pruned');
      if (pruned.receipts > 0)
        logger.info({ pruned: pruned.receipts }, 'completed namespace deletions pruned');
    },
    logger,
  );
}
