import { pruneExpiredEntries, pruneExpiredTombstones } from '../data-access/idempotency-pruning.js';
import { pruneFinishedDeletions } from '../data-access/namespace-deletion.js';
import { getSql } from '../data-access/prisma-client.js';

/**
 * Delete what is kept only for a while: idempotency entries and forgotten memories' tombstones past
 * `idempotencyHours`, completed deletions' receipts past `receiptHours`. Returns how many of each went.
 */
export async function pruneExpiredRecords(retention: { idempotencyHours: number; receiptHours: number }) {
  const run = getSql();
  const entries = await pruneExpiredEntries(run, retention.idempotencyHours);
  const tombstones = await pruneExpiredTombstones(run, retention.idempotencyHours);
  const receipts = await pruneFinishedDeletions(run, retention.receiptHours);
  return { entries, tombstones, receipts };
}
