import type { Prisma, PrismaClient } from './generated/client.js';
import type { Db } from './prisma-client.js';

export interface NewTemplateMemory {
  memoryId: string;
  tenantId: string;
  namespace: string;
  source: 'private' | 'marketplace';
  templateId: string | null;
  marketplaceTemplateId: string | null;
  templateName: string;
  templateVersion: string;
  templateRevision: number | null;
  data: Record<string, unknown>;
  text: string;
}

/** The memory a request will make, held with its claim until the write is retained. */
export type PendingTemplateMemory = Omit<NewTemplateMemory, 'memoryId'>;

/**
 * Claim an idempotency key for a creation request together with the memory it will make, or read the
 * claim an earlier attempt left: its fingerprint, the time it gave the memory write and its pending
 * memory. Storing the data here, before the write, is what makes data the database refuses fail
 * before anything is retained or billed.
 */
export async function claimMemoryRequest(
  db: Db,
  claim: { idempotencyKey: string; fingerprint: string; occurredAt: Date; pending: PendingTemplateMemory },
) {
  const { pending } = claim;
  await db.memoryRequest.createMany({
    data: [
      {
        tenantId: pending.tenantId,
        idempotencyKey: claim.idempotencyKey,
        namespace: pending.namespace,
        fingerprint: claim.fingerprint,
        occurredAt: claim.occurredAt,
        source: pending.source,
        templateId: pending.templateId,
        marketplaceTemplateId: pending.marketplaceTemplateId,
        templateName: pending.templateName,
        templateVersion: pending.templateVersion,
        templateRevision: pending.templateRevision,
        data: pending.data as Prisma.InputJsonValue,
        text: pending.text,
      },
    ],
    skipDuplicates: true,
  });
  const row = await db.memoryRequest.findUniqueOrThrow({
    where: {
      tenantId_idempotencyKey: { tenantId: pending.tenantId, idempotencyKey: claim.idempotencyKey },
    },
  });
  return { fingerprint: row.fingerprint, occurredAt: row.occurredAt, pending: pendingOf(row) ?? pending };
}

/** The claim's pending memory; null for a claim made before claims held one. */
function pendingOf(row: {
  tenantId: string;
  namespace: string;
  source: string | null;
  templateId: string | null;
  marketplaceTemplateId: string | null;
  templateName: string | null;
  templateVersion: string | null;
  templateRevision: number | null;
  data: unknown;
  text: string | null;
}): PendingTemplateMemory | null {
  if (row.text === null || row.templateName === null || row.templateVersion === null) return null;
  return {
    tenantId: row.tenantId,
    namespace: row.namespace,
    source: row.source === 'marketplace' ? 'marketplace' : 'private',
    templateId: row.templateId,
    marketplaceTemplateId: row.marketplaceTemplateId,
    templateName: row.templateName,
    templateVersion: row.templateVersion,
    templateRevision: row.templateRevision,
    data: row.data as Record<string, unknown>,
    text: row.text,
  };
}

/** Nothing was retained: forget the claim, so the same request is retained once consent is given. */
export async function releaseMemoryRequest(db: Db, tenantId: string, idempotencyKey: string) {
  await db.memoryRequest.deleteMany({ where: { tenantId, idempotencyKey } });
}

/** Insert once per memory id; a replayed write finds the row its first attempt stored. */
export async function storeTemplateMemory(db: Db, memory: NewTemplateMemory) {
  await db.templateMemory.createMany({
    data: [{ ...memory, data: memory.data as Prisma.InputJsonValue }],
    skipDuplicates: true,
  });
  return db.templateMemory.findUniqueOrThrow({ where: { memoryId: memory.memoryId } });
}

export async function findTemplateMemory(db: Db, tenantId: string, memoryId: string) {
  return db.templateMemory.findFirst({ where: { tenantId, memoryId } });
}

/**
 * A forgotten memory's row goes, and the creation request that made it is redacted (data and text
 * cleared) in the same transaction. The request is the one with the memory's namespace, event time (the
 * claim's, which the write was given) and text: requests carry no memory id. Another request of the
 * same text in that namespace may be redacted with it, which is harmless: a retry of that one renders
 * the same text again from its own body (the same fingerprint means the same data).
 */
export async function forgetTemplateMemory(db: PrismaClient, tenantId: string, memoryId: string) {
  return db.$transaction(async (tx) => {
    const gone = await tx.$queryRaw<Array<{ namespace: string; text: string; created_at: Date }>>`
      DELETE FROM template_memory WHERE memory_id = ${memoryId} AND tenant_id = ${tenantId}
      RETURNING namespace, text, created_at`;
    const row = gone[0];
    if (!row) return { template_memories: 0, memory_requests: 0 };
    const redacted = await tx.$executeRaw`
      UPDATE memory_request SET data = NULL, text = NULL
       WHERE tenant_id = ${tenantId} AND namespace = ${row.namespace} AND text = ${row.text}
         AND occurred_at <= ${row.created_at}`;
    return { template_memories: 1, memory_requests: redacted };
  });
}

/** What one batch of a namespace's deletion removed: rows of one table, or one emptied import job. */
export type NamespaceBatch =
  | { part: 'import_rows' | 'import_chunks' | 'template_memories' | 'memory_requests'; count: number }
  | { part: 'import_jobs'; count: 1 };

/**
 * One bounded batch of a namespace's deletion, committed on its own: up to `limit` rows of the first
 * part that still holds any, in the order imports (their rows, then their chunks, then the emptied job:
 * never one cascade over a whole dataset), template memories, memory requests. Null when nothing of the
 * namespace is left (a cancelled job, emptied, stays). Each call finds its place from what is stored, so a call after a crash or a
 * timed-out request goes on from the last committed batch rather than starting over.
 */
export async function deleteNamespaceBatch(
  db: Db,
  tenantId: string,
  namespace: string,
  limit: number,
): Promise<NamespaceBatch | null> {
  // A cancelled job stays, its counts kept on it, for its status route: only its rows and chunks go.
  const job = await db.importJob.findFirst({
    where: {
      tenantId,
      namespace,
      OR: [{ state: { not: 'cancelled' } }, { rows: { some: {} } }, { chunks: { some: {} } }],
    },
    select: { id: true, state: true },
  });
  if (job) {
    // Rows and chunks in primary-key order from the job's start: an index range scan per batch.
    const rows = await db.$executeRaw`
      DELETE FROM import_row WHERE import_id = ${job.id}::uuid AND row_number IN (
        SELECT row_number FROM import_row WHERE import_id = ${job.id}::uuid ORDER BY row_number LIMIT ${limit})`;
    if (rows > 0) return { part: 'import_rows', count: rows };
    const chunks = await db.$executeRaw`
      DELETE FROM import_chunk WHERE import_id = ${job.id}::uuid AND seq IN (
        SELECT seq FROM import_chunk WHERE import_id = ${job.id}::uuid ORDER BY seq LIMIT ${limit})`;
    if (chunks > 0) return { part: 'import_chunks', count: chunks };
    if (job.state === 'cancelled') return { part: 'import_rows', count: 0 };
    // Empty now; a row an import worker settles meanwhile is gone with it (cascade, a handful at most).
    await db.importJob.deleteMany({ where: { id: job.id } });
    return { part: 'import_jobs', count: 1 };
  }
  const memories = await db.$executeRaw`
    DELETE FROM template_memory WHERE memory_id IN (
      SELECT memory_id FROM template_memory WHERE tenant_id = ${tenantId} AND namespace = ${namespace} LIMIT ${limit})`;
  if (memories > 0) return { part: 'template_memories', count: memories };
  const requests = await db.$executeRaw`
    DELETE FROM memory_request WHERE tenant_id = ${tenantId} AND idempotency_key IN (
      SELECT idempotency_key FROM memory_request
      WHERE tenant_id = ${tenantId} AND namespace = ${namespace} LIMIT ${limit})`;
  if (requests > 0) return { part: 'memory_requests', count: requests };
  return null;
}
