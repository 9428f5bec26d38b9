import { AppError, ErrorCode, type Memory, type Scope, type TemplateMemory } from '@tm/contracts';
import type { MemoryClient } from '../../clients/memory-client.js';
import type { TemplateClient } from '../../clients/template-client.js';

/**
 * Any retained memory of the caller's tenant by its id: the record from the memory service (which
 * owns every memory, however it was written), with data and template metadata from the template
 * service when the record was written from a template. The tenant is the credential's, sent in scope.
 */
export async function readMemory(
  scope: Scope,
  requestId: string,
  memoryId: string,
  deps: { memory: MemoryClient; templates: TemplateClient },
): Promise<Memory> {
  const stored = await deps.memory.get({ scope, request_id: requestId, memory_id: memoryId });
  const made =
    stored.source?.type === 'template'
      ? await templateMemoryOf(deps.templates, scope.tenant_id, stored.memory_id)
      : null;
  return {
    ...stored,
    data: made?.data ?? null,
    template: made?.template ?? null,
    created_at: stored.retained_at,
  };
}

/** The template service's row for it; none when the write never got one (then it reads as plain). */
async function templateMemoryOf(
  templates: TemplateClient,
  tenantId: string,
  memoryId: string,
): Promise<TemplateMemory | null> {
  try {
    return await templates.getMemory({ tenant_id: tenantId, memory_id: memoryId });
  } catch (err) {
    if (err instanceof AppError && err.code === ErrorCode.NotFound) return null;
    throw err;
  }
}
