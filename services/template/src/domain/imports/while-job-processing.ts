import type { Prisma, PrismaClient } from '../../data-access/generated/client.js';
import type { ImportJobRecord } from '../../data-access/import-repository.js';
import { underFence } from '../../data-access/namespace-fence.js';

/**
 * Run `work`, which writes into the job's namespace or keeps rows for it, under the namespace fence's
 * shared lock, and only while the job is still processing: a namespace deletion waits for it, and once
 * the deletion has cancelled the job (and removed its rows) nothing more is written or kept for it.
 * False when the job was cancelled or ended meanwhile, or its namespace is being deleted.
 */
export function whileJobProcessing(
  job: ImportJobRecord,
  db: PrismaClient,
  work: (tx: Prisma.TransactionClient) => Promise<boolean>,
  timeoutMs: number,
): Promise<boolean> {
  return underFence(
    db,
    job,
    async (tx) => {
      const now = await tx.importJob.findUnique({ where: { id: job.id }, select: { state: true } });
      return now?.state === 'processing' ? work(tx) : false;
    },
    { timeoutMs, ifFenced: () => false },
  );
}
