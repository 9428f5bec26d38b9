import type { TemplateMemoryForgetMessage, TemplateMemoryForgotten } from '@tm/contracts';
import { getPrisma } from '../../data-access/prisma-client.js';
import { forgetTemplateMemory as forgetRows } from '../../data-access/template-memory-repository.js';

/**
 * A memory was forgotten by the memory service: its data and rendered text go from here too.
 * Its creation request stays, redacted, holding only its fingerprint and time, so a retry with the
 * same key sends memory the very same write, which memory answers as forgotten. Idempotent: the
 * gateway repeats it until it has been answered.
 */
export async function forgetTemplateMemory(
  msg: TemplateMemoryForgetMessage,
  db = getPrisma(),
): Promise<TemplateMemoryForgotten> {
  return forgetRows(db, msg.tenant_id, msg.memory_id);
}
