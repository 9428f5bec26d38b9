import type { Prisma } from './generated/client.js';
import { type Db, getPrisma } from './prisma-client.js';

export interface NewTemplateMemory {
  memoryId: string;
  tenantId: string;
  namespace: string;
  source: 'private' | 'marketplace';
  templateId: string | null;
  marketplaceTemplateId: string | null;
  templateName: string;
  templateVersion: string;
  data: Record<string, unknown>;
  text: string;
}

/**
 * Claim an idempotency key for a creation request, or read the claim an earlier attempt left: its
 * fingerprint and the time it gave the memory write.
 */
export async function claimMemoryRequest(
  claim: {
    tenantId: string;
    idempotencyKey: string;
    namespace: string;
    fingerprint: string;
    occurredAt: Date;
  },
  db: Db = getPrisma(),
) {
  await db.memoryRequest.createMany({ data: [claim], skipDuplicates: true });
  return db.memoryRequest.findUniqueOrThrow({
    where: { tenantId_idempotencyKey: { tenantId: claim.tenantId, idempotencyKey: claim.idempotencyKey } },
  });
}

/** Nothing was retained: forget the claim, so the same request is retained once consent is given. */
export async function releaseMemoryRequest(tenantId: string, idempotencyKey: string, db: Db = getPrisma()) {
  await db.memoryRequest.deleteMany({ where: { tenantId, idempotencyKey } });
}

/** Insert once per memory id; a replayed write finds the row its first attempt stored. */
export async function storeTemplateMemory(memory: NewTemplateMemory, db: Db = getPrisma()) {
  await db.templateMemory.createMany({
    data: [{ ...memory, data: memory.data as Prisma.InputJsonValue }],
    skipDuplicates: true,
  });
  return db.templateMemory.findUniqueOrThrow({ where: { memoryId: memory.memoryId } });
}

export async function findTemplateMemory(tenantId: string, memoryId: string, db: Db = getPrisma()) {
  return db.templateMemory.findFirst({ where: { tenantId, memoryId } });
}

/** Everything held for one namespace of a tenant, in one transaction. */
export async function deleteNamespaceMemories(tenantId: string, namespace: string, db = getPrisma()) {
  const [memories, , imports] = await db.$transaction([
    db.templateMemory.deleteMany({ where: { tenantId, namespace } }),
    db.memoryRequest.deleteMany({ where: { tenantId, namespace } }),
    // Imports into the namespace go too, with their rows and chunks (cascade): they hold its data.
    db.importJob.deleteMany({ where: { tenantId, namespace } }),
  ]);
  return { templateMemories: memories.count, importJobs: imports.count };
}
