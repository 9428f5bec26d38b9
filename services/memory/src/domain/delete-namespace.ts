import { CONTRACT_VERSION, type DeleteReceipt, type MemoryDeleteMessage } from '@tm/contracts';
import { deleteNamespaceData } from '../data-access/namespace-deletion.js';
import { getPrisma } from '../data-access/prisma-client.js';

/**
 * Remove exactly one namespace of the caller's tenant: records, supersession relations and
 * idempotency state, in one transaction. Usage already recorded stays (billing history).
 */
export async function deleteNamespace(
  msg: MemoryDeleteMessage,
  prisma = getPrisma(),
): Promise<DeleteReceipt> {
  const scope = { tenantId: msg.scope.tenant_id, namespace: msg.namespace };
  const counts = await prisma.$transaction((tx) => deleteNamespaceData(tx, scope));
  return {
    contract_version: CONTRACT_VERSION,
    operation: 'memory.delete',
    state: counts.records > 0 ? 'deleted' : 'no_data',
    request_id: msg.request_id,
    retryable: false,
    namespace: msg.namespace,
    deleted: counts.records,
    retained: 0,
    removed: { supersession_relations: counts.relations, idempotency_entries: counts.idempotency },
  };
}
