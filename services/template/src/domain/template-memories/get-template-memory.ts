import { AppError, ErrorCode, type GetTemplateMemoryMessage, type TemplateMemory } from '@tm/contracts';
import { isBeingDeleted } from '../../data-access/namespace-fence.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { findTemplateMemory } from '../../data-access/template-memory-repository.js';
import { templateMemoryView } from '../templates/template-views.js';

/**
 * A memory created from a template, with its data; another tenant's id is "not found", and so is one
 * whose namespace is being deleted (hidden from the deletion's first call, as the memory service hides
 * its record).
 */
export async function getTemplateMemory(
  msg: GetTemplateMemoryMessage,
  db = getPrisma(),
): Promise<TemplateMemory> {
  const row = await findTemplateMemory(db, msg.tenant_id, msg.memory_id);
  if (!row || (await isBeingDeleted(db, row.tenantId, row.namespace))) {
    throw new AppError(ErrorCode.NotFound, 'No such memory');
  }
  return templateMemoryView(row);
}
