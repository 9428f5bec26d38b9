import { AppError, ErrorCode } from '@tm/contracts';
import type { Prisma, PrismaClient } from './generated/client.js';
import { countImportRows } from './import-row-counts.js';

/*
 * A namespace's fence in the template service: from the first DELETE of a namespace until nothing of
 * it is left here, template memories, imports and restores into it are refused (409
 * namespace_being_deleted) and its running jobs are `cancelled`. Two locks on one advisory key per
 * (tenant, namespace): the fence and its lifting take it exclusive; the work that writes into the
 * namespace (a job's batch of writes to memory, a template memory's row, a job's start) takes it shared
 * and checks the fence under it. So the fence's commit waits for every batch in flight, on every
 * instance, to finish, and no batch starts writing after it; and the lifting sees every row a writer
 * committed before it.
 */

/** Which advisory locks are namespace fences (the key's first half; the second is the scope's hash). */
const FENCE_LOCK_CLASS = 0x7e_4ce;

const scopeOf = (tenantId: string, namespace: string) => `${tenantId}\n${namespace}`;

async function lockExclusive(tx: Prisma.TransactionClient, tenantId: string, namespace: string) {
  await tx.$queryRaw`SELECT pg_advisory_xact_lock(${FENCE_LOCK_CLASS}::int, hashtext(${scopeOf(tenantId, namespace)}))::text`;
}

async function lockShared(tx: Prisma.TransactionClient, tenantId: string, namespace: string) {
  await tx.$queryRaw`SELECT pg_advisory_xact_lock_shared(${FENCE_LOCK_CLASS}::int, hashtext(${scopeOf(tenantId, namespace)}))::text`;
}

async function isFenced(tx: Prisma.TransactionClient | PrismaClient, tenantId: string, namespace: string) {
  const fence = await tx.namespaceFence.findUnique({
    where: { tenantId_namespace: { tenantId, namespace } },
  });
  return fence !== null;
}

/** A write into a namespace whose deletion is running: refused, to be retried once it has ended. */
export const namespaceBeingDeleted = () =>
  new AppError(
    ErrorCode.NamespaceBeingDeleted,
    'This namespace is being deleted; write to it again once the deletion has finished',
    { retryAfter: 1 },
  );

/** The jobs a deletion stops: started or waiting to be (an upload still arriving is simply deleted). */
const CANCELLABLE = ['estimated', 'processing'];

/**
 * Put the fence up (or find it up) and cancel the namespace's jobs, in one transaction that waits for
 * every batch of theirs in flight: when it returns, none of them writes again. Returns how many jobs
 * it cancelled; each keeps its counts as they stood (its rows go with the namespace).
 */
export async function fenceNamespace(db: PrismaClient, tenantId: string, namespace: string): Promise<number> {
  return db.$transaction(
    async (tx) => {
      await lockExclusive(tx, tenantId, namespace);
      await tx.namespaceFence.upsert({
        where: { tenantId_namespace: { tenantId, namespace } },
        create: { tenantId, namespace },
        update: {},
      });
      const jobs = await tx.importJob.findMany({
        where: { tenantId, namespace, state: { in: CANCELLABLE } },
        select: { id: true },
      });
      const at = new Date();
      for (const job of jobs) {
        const counts = await countImportRows(tx, job.id);
        await tx.importJob.update({
          where: { id: job.id },
          data: { state: 'cancelled', completedAt: at, finalCounts: { ...counts }, hubTokenSealed: null },
        });
      }
      return jobs.length;
    },
    // The wait is for batches in flight: IMPORT_BATCH_SIZE rows, IMPORT_CONCURRENCY at a time.
    { maxWait: 5_000, timeout: 60_000 },
  );
}

/** Is the namespace being deleted (fenced)? Hides its data, and refuses early; the binding check is under the lock. */
export function isBeingDeleted(db: PrismaClient, tenantId: string, namespace: string) {
  return isFenced(db, tenantId, namespace);
}

/**
 * Run `work` (which writes into the namespace) under the fence's shared lock, after checking the
 * fence is down: `work` then finishes before any fence can go up. `ifFenced` says what a fenced
 * namespace gets: a refusal (the default), or a value (a job's batch simply stops).
 */
export async function underFence<T>(
  db: PrismaClient,
  scope: { tenantId: string; namespace: string },
  work: (tx: Prisma.TransactionClient) => Promise<T>,
  options: { timeoutMs: number; ifFenced?: () => T },
): Promise<T> {
  return db.$transaction(
    async (tx) => {
      await lockShared(tx, scope.tenantId, scope.namespace);
      if (await isFenced(tx, scope.tenantId, scope.namespace)) {
        if (options.ifFenced) return options.ifFenced();
        throw namespaceBeingDeleted();
      }
      return work(tx);
    },
    { maxWait: 5_000, timeout: options.timeoutMs },
  );
}

/** Inside a transaction that writes into the namespace: its shared lock, and a refusal if fenced. */
export async function refuseIfFenced(tx: Prisma.TransactionClient, tenantId: string, namespace: string) {
  await lockShared(tx, tenantId, namespace);
  if (await isFenced(tx, tenantId, namespace)) throw namespaceBeingDeleted();
}

/**
 * Take the fence down if nothing of the namespace is left (`isEmpty`, asked under the exclusive lock,
 * so a row a writer committed before is seen): true when it is down.
 */
export async function liftFence(
  db: PrismaClient,
  tenantId: string,
  namespace: string,
  isEmpty: (tx: Prisma.TransactionClient) => Promise<boolean>,
): Promise<boolean> {
  return db.$transaction(async (tx) => {
    await lockExclusive(tx, tenantId, namespace);
    if (!(await isEmpty(tx))) return false;
    await tx.namespaceFence.deleteMany({ where: { tenantId, namespace } });
    return true;
  });
}
