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

/** Everything held for one namespace of a tenant, in one transaction. */
export async function deleteNamespaceMemories(db: PrismaClient, tenantId: string, namespace: string) {
  const [memories, , imports] = await db.$transaction([
    db.templateMemory.deleteMany({ where: { tenantId, namespace } }),
    db.memoryRequest.deleteMany({ where: { tenantId, namespace } }),
    // Imports into the namespace go too, with their rows and chunks (cascade): they hold its data.
    db.importJob.deleteMany({ where: { tenantId, namespace } }),
  ]);
  return { templateMemories: memories.count, importJobs: imports.count };
}
