import type { DeleteTemplateNamespaceMessage, TemplateNamespaceDeleted } from '@tm/contracts';
import { deleteNamespaceMemories as deleteStored } from '../data-access/template-memory-repository.js';

/**
 * A namespace delete reaches here before the memory service: the data of its template memories goes
 * with the text, and so do their idempotency records, as memory drops its own for the namespace.
 */
export async function deleteNamespaceMemories(
  msg: DeleteTemplateNamespaceMessage,
): Promise<TemplateNamespaceDeleted> {
  return { template_memories: await deleteStored(msg.tenant_id, msg.namespace) };
}
