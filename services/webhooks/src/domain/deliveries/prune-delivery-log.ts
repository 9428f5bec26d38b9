import { pruneFinishedDeliveries } from '../../data-access/delivery-repository.js';
import { type Db, getPrisma } from '../../data-access/prisma-client.js';

/**
 * Deliveries deleted per statement. Each takes its attempts with it (8 on the standard schedule, a few
 * more per redeliver), so a batch is some thousands of rows: short statements, so the poller's claims
 * and the fan-out's inserts never wait long behind one.
 */
export const PRUNE_BATCH = 1_000;

/**
 * Delete the deliveries that finished more than `retentionDays` ago, with their attempts, oldest first,
 * one batch per statement (each its own transaction) until a batch comes back short; pending ones stay
 * whatever their age. Returns how many deliveries went.
 */
export async function pruneDeliveryLog(
  { retentionDays, batchSize = PRUNE_BATCH }: { retentionDays: number; batchSize?: number },
  db: Db = getPrisma(),
): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await pruneFinishedDeliveries(db, retentionDays, batchSize);
    total += n;
    if (n < batchSize) return total;
  }
}
