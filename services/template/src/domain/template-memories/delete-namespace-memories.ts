import { setTimeout as sleep } from 'node:timers/promises';
import type { DeleteTemplateNamespaceMessage, TemplateNamespaceDeleted } from '@tm/contracts';
import type { Logger } from '@tm/kit';
import type { PrismaClient } from '../../data-access/generated/client.js';
import { fenceNamespace, isBeingDeleted, liftFence } from '../../data-access/namespace-fence.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { deleteNamespaceBatch } from '../../data-access/template-memory-repository.js';

export interface NamespaceDeletionOptions {
  /** Rows per committed batch (TEMPLATE_DELETE_BATCH_SIZE). */
  batchSize: number;
  /** How long a request waits for the deletion before answering it in progress (TEMPLATE_DELETE_WAIT_MS). */
  waitMs: number;
  logger?: Logger;
}

type Counts = Pick<TemplateNamespaceDeleted, 'template_memories' | 'import_jobs'>;

/**
 * The deletions this instance is running, by (tenant, namespace): a request arriving while one runs
 * (a second DELETE, the status route's poll) follows it rather than starting a second loop.
 */
const running = new Map<string, Running>();

interface Running {
  /** Settles once the first batch has committed (or found nothing left). */
  firstBatch: Promise<unknown>;
  done: Promise<Counts>;
  /** What it has removed so far, for an answer while it runs. */
  deleted: Counts;
}

/**
 * A namespace delete reaches here before the memory service. First the fence (namespace-fence.ts):
 * from its commit, template memories, imports and restores into the namespace are refused and its
 * running jobs are `cancelled`, their batches in flight finished: so when the memory service's job
 * starts next, nothing of this service writes into the namespace again. Then the namespace's data here
 * (its template memories, their idempotency records, its imports' rows) goes in committed bounded
 * batches to the end, whether or not the asker still waits, and the fence comes down with the last.
 * Answered `completed` when done within `waitMs`, else `in_progress` (the gateway's receipt says the
 * deletion is still running, and its status route follows this one with `follow`). A request that
 * starts a deletion waits for its first batch, bounded by the batch size, so a namespace with nothing
 * here is answered completed whatever the wait. After a restart, the next ask (a DELETE or a poll)
 * resumes the deletion from what is stored.
 */
export async function deleteNamespaceMemories(
  msg: DeleteTemplateNamespaceMessage,
  options: NamespaceDeletionOptions,
  db: PrismaClient = getPrisma(),
): Promise<TemplateNamespaceDeleted> {
  const key = JSON.stringify([msg.tenant_id, msg.namespace]);
  const cancelled = msg.follow ? 0 : await fenceNamespace(db, msg.tenant_id, msg.namespace);
  let run = running.get(key);
  if (!run && msg.follow && !(await isBeingDeleted(db, msg.tenant_id, msg.namespace))) {
    // Nothing of a deletion is left running (its fence is down): the template part is done.
    return { status: 'completed', template_memories: 0, import_jobs: 0, cancelled_jobs: 0 };
  }
  if (!run) {
    let batchDone = () => {};
    const firstBatch = new Promise<void>((resolve) => {
      batchDone = resolve;
    });
    const deleted = { template_memories: 0, import_jobs: 0 };
    const done = deleteAll(db, msg, options.batchSize, deleted, batchDone).finally(() => {
      batchDone();
      running.delete(key);
    });
    run = { firstBatch, done, deleted };
    running.set(key, run);
    // Nobody may be waiting when it fails (the asker gave up): say so; the next ask goes on from there.
    done.catch((err: unknown) =>
      options.logger?.warn({ err }, 'template namespace deletion stopped; the next request resumes it'),
    );
  }
  await run.firstBatch;
  const waiting = new AbortController();
  try {
    const finished = await Promise.race([
      run.done,
      sleep(options.waitMs, undefined, { signal: waiting.signal }),
    ]);
    if (finished) return { status: 'completed', ...finished, cancelled_jobs: cancelled };
  } finally {
    waiting.abort();
  }
  return { status: 'in_progress', ...run.deleted, cancelled_jobs: cancelled };
}

/**
 * Batch after batch until a batch finds nothing of the namespace left; the last look is taken under
 * the fence's exclusive lock and takes the fence down with it (it deletes what it finds, and goes on).
 */
export async function deleteAll(
  db: PrismaClient,
  msg: DeleteTemplateNamespaceMessage,
  batchSize: number,
  deleted: Counts = { template_memories: 0, import_jobs: 0 },
  onBatch: () => void = () => {},
): Promise<Counts> {
  const count = (batch: Awaited<ReturnType<typeof deleteNamespaceBatch>>) => {
    if (batch?.part === 'template_memories') deleted.template_memories += batch.count;
    if (batch?.part === 'import_jobs') deleted.import_jobs += batch.count;
    return batch;
  };
  for (;;) {
    const batch = count(await deleteNamespaceBatch(db, msg.tenant_id, msg.namespace, batchSize));
    onBatch();
    if (batch) continue;
    const lifted = await liftFence(
      db,
      msg.tenant_id,
      msg.namespace,
      async (tx) => count(await deleteNamespaceBatch(tx, msg.tenant_id, msg.namespace, batchSize)) === null,
    );
    if (lifted) return deleted;
  }
}
