import {
  AppError,
  ErrorCode,
  EventSource,
  type MemoryGetMessage,
  type StoredMemory,
  UUID_PATTERN,
} from '@tm/contracts';
import { findRecord } from '../data-access/memory-record-repository.js';
import { isBeingDeleted } from '../data-access/namespace-deletion.js';
import { getPrisma, getSql } from '../data-access/prisma-client.js';

const notFound = () => new AppError(ErrorCode.NotFound, 'No such memory');

/**
 * One retained record of the caller's tenant (scope from the verified credential), superseded or
 * not: supersession hides a record from recall, it does not remove it. A deleted namespace's records
 * (and those of one being deleted) are gone, so their ids are "not found", as are other tenants'.
 */
export async function getMemory(msg: MemoryGetMessage, db = getPrisma()): Promise<StoredMemory> {
  // Record ids are UUIDs (a uuid column): anything else names no record and must not reach the query.
  if (!UUID_PATTERN.test(msg.memory_id)) throw notFound();
  const record = await findRecord(db, msg.scope.tenant_id, msg.memory_id.toLowerCase());
  if (!record) throw notFound();
  // Hidden from the moment its namespace's deletion starts, as it will be gone.
  if (await isBeingDeleted(getSql(), record.tenantId, record.namespace)) throw notFound();
  const source = EventSource.safeParse(record.source);
  return {
    memory_id: record.id,
    namespace: record.namespace,
    event_id: record.eventId,
    occurred_at: record.occurredAt.toISOString(),
    text: record.text,
    source: source.success ? source.data : null,
    state: record.supersededAt ? 'superseded' : 'retained',
    superseded_at: record.supersededAt?.toISOString() ?? null,
    retained_at: record.retainedAt.toISOString(),
  };
}
