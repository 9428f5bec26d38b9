import { Prisma, type PrismaClient } from './generated/client.js';
import { refuseIfFenced } from './namespace-fence.js';
import type { Db } from './prisma-client.js';

export type ImportJobRecord = Prisma.ImportJobGetPayload<object>;

/**
 * Opens a job unless the tenant already has `maxInFlight` jobs matching `inFlight` (its uploads being
 * received, or its dataset imports being resolved or read). A per-tenant advisory lock makes count
 * and insert one step, so two imports arriving together cannot both take the last place.
 */
export async function insertImportJobWithinLimit(
  db: PrismaClient,
  data: Prisma.ImportJobUncheckedCreateInput & { tenantId: string; namespace: string },
  limit: { maxInFlight: number; inFlight: Prisma.ImportJobWhereInput },
): Promise<boolean> {
  return db.$transaction(async (tx) => {
    // A namespace being deleted takes no new job (409); one opened before its fence is cancelled by it.
    await refuseIfFenced(tx, data.tenantId, data.namespace);
    await lockTenantImports(tx, data.tenantId);
    const inFlight = await tx.importJob.count({ where: { ...limit.inFlight, tenantId: data.tenantId } });
    if (inFlight >= limit.maxInFlight) return false;
    await tx.importJob.create({ data });
    return true;
  });
}

/** One tenant's counts and changes of in-flight imports, one at a time (across instances). */
async function lockTenantImports(tx: Prisma.TransactionClient, tenantId: string) {
  await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${`import:${tenantId}`}))::text`;
}

/** A dataset import's job once the hub has answered: resolving → estimated, with what it found. */
export async function markDatasetJobEstimated(
  db: Db,
  importId: string,
  data: Prisma.ImportJobUncheckedUpdateManyInput,
): Promise<boolean> {
  const { count } = await db.importJob.updateMany({
    where: { id: importId, state: 'resolving' },
    data: { ...data, state: 'estimated' },
  });
  return count === 1;
}

/**
 * A tenant's job of a kind, or null: another tenant's job is as absent as one that never existed, and
 * so is a job of the other kind (an import's routes never see a restore, nor the other way round).
 */
export async function findImportJob(
  db: Db,
  tenantId: string,
  importId: string,
  kind: 'import' | 'restore' = 'import',
) {
  return db.importJob.findFirst({ where: { id: importId, tenantId, kind } });
}

export async function deleteImportJob(db: Db, importId: string) {
  await db.importJob.deleteMany({ where: { id: importId } });
}

/** A job still being received (either kind), with its chunks and rows; nothing once it is past that. */
export async function deleteUploadingJob(db: Db, tenantId: string, importId: string) {
  await db.importJob.deleteMany({ where: { id: importId, tenantId, state: 'uploading' } });
}

/** Stores one chunk; a retried chunk (same seq) is kept once. */
export async function insertImportChunk(db: Db, importId: string, seq: number, data: Uint8Array) {
  await db.importChunk.createMany({
    data: [{ importId, seq, data: Buffer.from(data) }],
    skipDuplicates: true,
  });
}

/** The upload's bytes, one chunk at a time in order, so parsing never holds the whole file. */
export async function* readImportChunks(db: Db, importId: string): AsyncGenerator<Buffer> {
  let after = -1;
  for (;;) {
    const chunk = await db.importChunk.findFirst({
      where: { importId, seq: { gt: after } },
      orderBy: { seq: 'asc' },
    });
    if (!chunk) return;
    after = chunk.seq;
    yield Buffer.from(chunk.data);
  }
}

export async function insertImportRows(db: Db, rows: Prisma.ImportRowCreateManyInput[]) {
  // skipDuplicates: a seal retried after a partial insert must not fail on rows already there
  await db.importRow.createMany({ data: rows, skipDuplicates: true });
}

/** The upload is parsed: its bytes go, its estimate stays. */
export async function markImportEstimated(
  db: PrismaClient,
  importId: string,
  estimate: Prisma.InputJsonValue,
) {
  await db.$transaction([
    db.importChunk.deleteMany({ where: { importId } }),
    db.importJob.update({ where: { id: importId }, data: { state: 'estimated', estimate } }),
  ]);
}

/** estimated → processing, once; false when the job was not in `estimated`. */
export async function markImportProcessing(
  db: Db,
  importId: string,
  scope: Prisma.InputJsonValue,
): Promise<boolean> {
  const { count } = await db.importJob.updateMany({
    where: { id: importId, state: 'estimated' },
    data: { state: 'processing', scope, startedAt: new Date() },
  });
  return count === 1;
}

/** A restore whose rows have all arrived: uploading → processing, once; false otherwise. */
export async function markRestoreProcessing(
  db: Db,
  importId: string,
  scope: Prisma.InputJsonValue,
): Promise<boolean> {
  const { count } = await db.importJob.updateMany({
    where: { id: importId, kind: 'restore', state: 'uploading' },
    data: { state: 'processing', scope, startedAt: new Date() },
  });
  return count === 1;
}

/**
 * estimated → processing for a job whose kind is limited while it runs (a dataset import reads the
 * hub): 'busy' when the tenant already has `maxInFlight` jobs matching `inFlight`, counted and
 * changed under the tenant's import lock.
 */
export async function markImportProcessingWithinLimit(
  db: PrismaClient,
  job: { id: string; tenantId: string },
  scope: Prisma.InputJsonValue,
  limit: { maxInFlight: number; inFlight: Prisma.ImportJobWhereInput },
): Promise<'started' | 'busy' | 'not_estimated'> {
  return db.$transaction(async (tx) => {
    await lockTenantImports(tx, job.tenantId);
    const inFlight = await tx.importJob.count({ where: { ...limit.inFlight, tenantId: job.tenantId } });
    const estimated = await tx.importJob.count({ where: { id: job.id, state: 'estimated' } });
    if (estimated === 0) return 'not_estimated';
    if (inFlight >= limit.maxInFlight) return 'busy';
    return (await markImportProcessing(tx, job.id, scope)) ? 'started' : 'not_estimated';
  });
}

/**
 * Jobs never started within their time: estimated → expired, in batches. A hub token kept for the
 * job goes, and so do its stored rows (an upload's values): nothing of an import nobody started is
 * kept past its time but its estimate. A dataset job left `resolving`, or a restore left `uploading`,
 * by a process that stopped mid-request is deleted. A start racing this sees `expired` (the update is
 * conditional on the state).
 */
export async function markUnstartedImportsExpired(
  db: PrismaClient,
  cutoff: { estimatedBefore: Date; resolvingBefore: Date },
  batch = 100,
): Promise<number> {
  let expired = 0;
  for (;;) {
    const pass = await db.$transaction(async (tx) => {
      const due = await tx.importJob.findMany({
        where: { state: 'estimated', createdAt: { lt: cutoff.estimatedBefore } },
        select: { id: true },
        take: batch,
      });
      const done = await tx.importJob.updateManyAndReturn({
        where: { id: { in: due.map((j) => j.id) }, state: 'estimated' },
        data: { state: 'expired', completedAt: new Date(), hubTokenSealed: null },
        select: { id: true },
      });
      await tx.importRow.deleteMany({ where: { importId: { in: done.map((j) => j.id) } } });
      return { due: due.length, expired: done.length };
    });
    expired += pass.expired;
    if (pass.due < batch) break;
  }
  // So is a restore left `uploading` by a gateway that stopped while sending its records:
  // its rows hold their text, which must not outlive the request that brought it.
  await db.importJob.deleteMany({
    where: {
      createdAt: { lt: cutoff.resolvingBefore },
      OR: [{ state: 'resolving' }, { kind: 'restore', state: 'uploading' }],
    },
  });
  return expired;
}

/**
 * processing → completed at `at`; a hub token kept for the job goes with it. The job as it now is, or
 * null when it was not processing.
 */
export async function markImportCompleted(
  db: Db,
  importId: string,
  at: Date,
): Promise<ImportJobRecord | null> {
  const [job] = await db.importJob.updateManyAndReturn({
    where: { id: importId, state: 'processing' },
    data: { state: 'completed', completedAt: at, hubTokenSealed: null },
  });
  return job ?? null;
}

/**
 * processing → failed at `at`: the job cannot go on (its dataset changed or its token stopped working).
 * The job as it now is, or null when it was not processing.
 */
export async function markImportFailed(
  db: Db,
  importId: string,
  error: { code: string; message: string },
  at: Date,
): Promise<ImportJobRecord | null> {
  const [job] = await db.importJob.updateManyAndReturn({
    where: { id: importId, state: 'processing' },
    data: {
      state: 'failed',
      completedAt: at,
      hubTokenSealed: null,
      errorCode: error.code,
      errorMessage: error.message,
    },
  });
  return job ?? null;
}

/** Rows read so far (settled or not): where a dataset import's next page starts. */
export async function countAllImportRows(db: Db, importId: string) {
  return db.importRow.count({ where: { importId } });
}

export async function countPendingImportRows(db: Db, importId: string) {
  return db.importRow.count({ where: { importId, state: 'pending' } });
}

/** The split turned out shorter than its metadata said: the job ends at what the hub has. */
export async function setDatasetRows(db: Db, importId: string, rows: number) {
  await db.importJob.updateMany({ where: { id: importId }, data: { datasetRows: rows } });
}

export async function findProcessingJobs(db: Db) {
  return db.importJob.findMany({ where: { state: 'processing' }, orderBy: { startedAt: 'asc' } });
}

export async function findPendingRows(db: Db, importId: string, limit: number) {
  return db.importRow.findMany({
    where: { importId, state: 'pending' },
    orderBy: { rowNumber: 'asc' },
    take: limit,
  });
}

/** What became of a row: written, (a restore's only) found already there, or refused. */
export type RowOutcome =
  | { state: 'retained' | 'present'; memoryId: string | null }
  | { state: 'failed'; reason: string; message: string };

export async function settleImportRow(db: Db, importId: string, rowNumber: number, outcome: RowOutcome) {
  // A settled row's values are cleared: its text lives in the memory service (or was refused), and
  // the uploaded data is not kept twice. updateMany: the job may have gone with its namespace.
  await db.importRow.updateMany({
    where: { importId, rowNumber },
    data:
      outcome.state !== 'failed'
        ? {
            state: outcome.state,
            memoryId: outcome.memoryId,
            reason: null,
            message: null,
            values: Prisma.DbNull,
          }
        : { state: 'failed', reason: outcome.reason, message: outcome.message, values: Prisma.DbNull },
  });
}

export async function listFailedRows(db: Db, importId: string, limit: number, offset: number) {
  const where = { importId, state: 'failed' };
  const [rows, total] = await Promise.all([
    db.importRow.findMany({
      where,
      orderBy: { rowNumber: 'asc' },
      take: limit,
      skip: offset,
      select: { rowNumber: true, eventId: true, reason: true, message: true },
    }),
    db.importRow.count({ where }),
  ]);
  return { rows, total };
}
