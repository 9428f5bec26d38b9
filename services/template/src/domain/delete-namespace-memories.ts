import type { DeleteTemplateNamespaceMessage, TemplateNamespaceDeleted } from '@tm/contracts';
import { getPrisma } from '../data-access/prisma-client.js';
import { deleteNamespaceMemories as deleteStored } from '../data-access/template-memory-repository.js';

/**
 * A namespace delete reaches here before the memory service: the data of its template memories goes
 * with the text, and so do their idempotency records, as memory drops its own for the namespace, and
 * the namespace's imports with the rows they read.
 */
export async function deleteNamespaceMemories(
  msg: DeleteTemplateNamespaceMessage,
  db = getPrisma(),
): Promise<TemplateNamespaceDeleted> {
  const deleted = await deleteStored(db, msg.tenant_id, msg.namespace);
  return { template_memories: deleted.templateMemories, import_jobs: deleted.importJobs };
}
