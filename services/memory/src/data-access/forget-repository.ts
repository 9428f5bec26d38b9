import type { Prisma } from './generated/client.js';
import type { Db } from './prisma-client.js';

/*
 * Forgetting one memory, statement by statement, all inside the caller's transaction: the
 * record is locked first, so a write superseding it either committed before (its relation is seen and
 * made unresolved) or waits and then finds no target (and records the relation unresolved itself).
 */

export interface LockedRecord {
  id: string;
  namespace: string;
  text: string;
  occurred_at: Date;
}

/** The tenant's record by id, locked until the transaction ends; null for none (or another tenant's). */
export async function lockRecord(tx: Db, tenantId: string, id: string): Promise<LockedRecord | null> {
  const rows = await tx.$queryRaw<LockedRecord[]>`
    SELECT id::text AS id, namespace, text, occurred_at FROM memory_record
     WHERE id = ${id}::uuid AND tenant_id = ${tenantId}
       FOR UPDATE`;
  return rows[0] ?? null;
}

/**
 * Its postings, by their full key: the stemmed terms (`terms`) and, for a namespace written before
 * recall matched on stems and not yet re-indexed, the old ones (`legacyTerms`), one index probe per
 * term whatever the namespace's size. Returns the postings removed.
 */
export async function deletePostings(
  tx: Db,
  tenantId: string,
  record: LockedRecord,
  terms: { terms: string[]; legacyTerms: string[] },
): Promise<number> {
  const removed = await tx.$executeRaw`
    DELETE FROM memory_term
     WHERE ((scope_key = memory_scope_key_v2(${tenantId}, ${record.namespace}) AND term = ANY(${terms.terms}::text[]))
         OR (scope_key = memory_scope_key(${tenantId}, ${record.namespace}) AND term = ANY(${terms.legacyTerms}::text[])))
       AND occurred_at = ${record.occurred_at} AND memory_id = ${record.id}::uuid`;
  return removed;
}

/**
 * One record fewer in its namespace's count, as the forgetting transaction's last statement, on a shard
 * no write adds to (64 + the connection's): a write locks its own shard first and then what it
 * supersedes, while a forget takes this row only once it holds everything else, so the two never wait
 * on each other in a circle.
 */
export async function countForgotten(tx: Db, tenantId: string, namespace: string): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO memory_scope_count (scope_key, shard, records)
    VALUES (memory_scope_key_v2(${tenantId}, ${namespace}), (64 + pg_backend_pid() % 64)::smallint, -1)
    ON CONFLICT (scope_key, shard) DO UPDATE SET records = memory_scope_count.records - 1`;
}

/** The relations its own event recorded (its supersedes list); returns the targets they had found. */
export async function deleteOwnRelations(tx: Db, memoryId: string) {
  const rows = await tx.$queryRaw<Array<{ target_memory_id: string | null }>>`
    DELETE FROM supersession_relation WHERE superseding_memory_id = ${memoryId}::uuid
    RETURNING target_memory_id::text AS target_memory_id`;
  return {
    count: rows.length,
    targets: [...new Set(rows.flatMap((r) => (r.target_memory_id ? [r.target_memory_id] : [])))],
  };
}

/**
 * Set each target's superseded time again from the superseding records still there (the earliest
 * event time, as markSuperseded keeps it); a target nothing supersedes any more is current again.
 * Returns the ids made current.
 */
export async function resupersede(tx: Db, targets: string[]): Promise<string[]> {
  if (targets.length === 0) return [];
  const rows = await tx.$queryRaw<Array<{ id: string; superseded_at: Date | null }>>`
    UPDATE memory_record t
       SET superseded_at = (SELECT min(r.occurred_at)
                              FROM supersession_relation s
                              JOIN memory_record r ON r.id = s.superseding_memory_id
                             WHERE s.target_memory_id = t.id AND s.status = 'superseded')
     WHERE t.id = ANY(${targets}::uuid[])
    RETURNING t.id::text AS id, t.superseded_at`;
  return rows.filter((r) => r.superseded_at === null).map((r) => r.id);
}

/**
 * Relations of later events that named it: kept (they are those events' own), now unresolved with no
 * target, as a write naming an event that is not there records them.
 */
export async function unresolveRelationsTo(tx: Db, memoryId: string): Promise<number> {
  return tx.$executeRaw`
    UPDATE supersession_relation SET status = 'unresolved', target_memory_id = NULL
     WHERE target_memory_id = ${memoryId}::uuid`;
}

export async function deleteRecord(tx: Db, memoryId: string): Promise<void> {
  await tx.$executeRaw`DELETE FROM memory_record WHERE id = ${memoryId}::uuid`;
}

export interface Tombstone {
  memoryId: string;
  tenantId: string;
  namespace: string;
  requestId: string;
  receipt: Prisma.InputJsonValue;
}

export async function insertTombstone(tx: Db, t: Tombstone): Promise<Date> {
  const row = await tx.forgottenMemory.create({ data: t, select: { forgottenAt: true } });
  return row.forgottenAt;
}

/** The tenant's tombstone for this id, if it forgot it (another tenant's is never found). */
export function findTombstone(db: Db, tenantId: string, memoryId: string) {
  return db.forgottenMemory.findFirst({ where: { memoryId, tenantId } });
}

/** When this memory was forgotten, for a write's replay: null if it never was. */
export async function forgottenAt(db: Db, memoryId: string): Promise<Date | null> {
  const row = await db.forgottenMemory.findUnique({ where: { memoryId }, select: { forgottenAt: true } });
  return row?.forgottenAt ?? null;
}
