import type { SqlRunner } from '@tm/kit';

/** Entries deleted per statement: short statements, so writes claiming keys never wait long behind one. */
export const PRUNE_BATCH = 5_000;

const DELETE_EXPIRED = `
  WITH gone AS (
    DELETE FROM idempotency_entry WHERE (tenant_id, key) IN (
      SELECT tenant_id, key FROM idempotency_entry
       WHERE created_at < now() - make_interval(hours => $1)
       ORDER BY created_at LIMIT $2)
    RETURNING 1)
  SELECT count(*)::int AS n FROM gone`;

/**
 * Delete the idempotency entries older than `retentionHours`, oldest first, one batch per statement
 * (each its own transaction) until a batch comes back short. Returns how many went.
 */
export async function pruneExpiredEntries(run: SqlRunner, retentionHours: number): Promise<number> {
  let total = 0;
  for (;;) {
    const [row] = await run<{ n: number }>(DELETE_EXPIRED, [retentionHours, PRUNE_BATCH]);
    const n = row?.n ?? 0;
    total += n;
    if (n < PRUNE_BATCH) return total;
  }
}

/**
 * Tombstones of forgotten memories past the same retention: by then the write entries they
 * answer for are gone too (each is older than its tombstone), so nothing replays as forgotten any more.
 */
export async function pruneExpiredTombstones(run: SqlRunner, retentionHours: number): Promise<number> {
  const [row] = await run<{ n: number }>(
    `WITH gone AS (DELETE FROM forgotten_memory WHERE forgotten_at < now() - make_interval(hours => $1) RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [retentionHours],
  );
  return row?.n ?? 0;
}
