import type { ForgetReceipt, Scope } from '@tm/contracts';
import type { MemoryClient } from '../../clients/memory-client.js';
import type { TemplateClient } from '../../clients/template-client.js';

/**
 * Forget one memory of the caller's tenant. The template service's copy (data and rendered
 * text, when it was made from a template) goes first, so it never outlives the record, as in a
 * namespace deletion; both steps are idempotent, so a retry after a fault in either finishes the job
 * (memory then answers its first receipt again). The tenant is the credential's, sent in scope.
 */
export async function forgetMemory(
  scope: Scope,
  requestId: string,
  memoryId: string,
  deps: { memory: MemoryClient; templates: TemplateClient },
): Promise<ForgetReceipt> {
  await deps.templates.forgetMemory({ tenant_id: scope.tenant_id, memory_id: memoryId });
  return deps.memory.forget({ scope, request_id: requestId, memory_id: memoryId });
}
