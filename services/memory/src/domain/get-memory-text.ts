import { type MemoryText, type MemoryTextMessage, UUID_PATTERN } from '@tm/contracts';
import { findRecord } from '../data-access/memory-record-repository.js';
import { isBeingDeleted } from '../data-access/namespace-deletion.js';
import { getPrisma, getSql } from '../data-access/prisma-client.js';

/**
 * The text of one record, for a webhook delivery to an endpoint that opted in. What
 * `memory.v1.get` hides (another tenant's record, one whose namespace is being deleted, one gone) is
 * `null` here: the delivery then goes without text rather than failing.
 */
export async function getMemoryText(msg: MemoryTextMessage, db = getPrisma()): Promise<MemoryText> {
  if (!UUID_PATTERN.test(msg.memory_id)) return { text: null };
  const record = await findRecord(db, msg.tenant_id, msg.memory_id.toLowerCase());
  if (!record || (await isBeingDeleted(getSql(), record.tenantId, record.namespace))) return { text: null };
  return { text: record.text };
}
