import { setTimeout as sleep } from 'node:timers/promises';
import {
  AppError,
  type DeleteTemplateNamespaceMessage,
  ErrorCode,
  type TemplateNamespaceDeleted,
} from '@tm/contracts';
import type { Logger } from '@tm/kit';
import type { PrismaClient } from '../../data-access/generated/client.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { deleteNamespaceBatch } from '../../data-access/template-memory-repository.js';

export interface NamespaceDeletionOptions {
  /** Rows per committed batch (TEMPLATE_DELETE_BATCH_SIZE). */
  batchSize: number;
  /** How long a request waits for the deletion before a retryable answer (TEMPLATE_DELETE_WAIT_MS). */
  waitMs: number;
  logger?: Logger;
}

/**
 * The deletions this instance is running, by (tenant, namespace): a request arriving while one runs
 * (the gateway's retry after a timeout) waits for it rather than starting a second loop.
 */
const running = new Map<string, Running>();

interface Running {
  /** Settles once the first batch has committed (or found nothing left). */
  firstBatch: Promise<unknown>;
  done: Promise<TemplateNamespaceDeleted>;
}

/**
 * A namespace delete reaches here before the memory service: the data of its template memories goes
 * with the text, and so do their idempotency records, as memory drops its own for the namespace, and
 * the namespace's imports with the rows they read. It runs in committed bounded batches to the end,
 * whether or not the asker still waits: answered when done within `waitMs`, else a retryable 503 while
 * the loop goes on (so the gateway never starts the memory deletion before this one has finished).
 * A request that starts a deletion always waits for its first batch, bounded by the batch size: so a
 * namespace with nothing left is answered at once whatever the wait, and each ask gets somewhere.
 */
export async function deleteNamespaceMemories(
  msg: DeleteTemplateNamespaceMessage,
  options: NamespaceDeletionOptions,
  db: PrismaClient = getPrisma(),
): Promise<TemplateNamespaceDeleted> {
  const key = JSON.stringify([msg.tenant_id, msg.namespace]);
  let run = running.get(key);
  if (!run) {
    let batchDone = () => {};
    const firstBatch = new Promise<void>((resolve) => {
      batchDone = resolve;
    });
    const done = deleteAll(db, msg, options.batchSize, batchDone).finally(() => {
      batchDone();
      running.delete(key);
    });
    run = { firstBatch, done };
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
    if (finished) return finished;
  } finally {
    waiting.abort();
  }
  throw new AppError(
    ErrorCode.ServiceUnavailable,
    'The namespace is still being deleted; ask again to follow the deletion to its end',
    { retryAfter: 1 },
  );
}

/** Batch after batch until a batch finds nothing of the namespace left (that last look is the sweep). */
export async function deleteAll(
  db: PrismaClient,
  msg: DeleteTemplateNamespaceMessage,
  batchSize: number,
  onBatch: () => void = () => {},
): Promise<TemplateNamespaceDeleted> {
  const deleted = { template_memories: 0, import_jobs: 0 };
  for (;;) {
    const batch = await deleteNamespaceBatch(db, msg.tenant_id, msg.namespace, batchSize);
    onBatch();
    if (!batch) return deleted;
    if (batch.part === 'template_memories') deleted.template_memories += batch.count;
    if (batch.part === 'import_jobs') deleted.import_jobs += batch.count;
  }
}
