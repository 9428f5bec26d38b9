import { randomUUID } from 'node:crypto';
import type { OutboxRow } from '@tm/bus';
import { prepared, type SqlRunner } from '@tm/kit';
import type { Db } from './prisma-client.js';

const ENQUEUE = prepared(
  'outbox_enqueue',
  'INSERT INTO outbox_message (id, subject, payload) VALUES ($1::uuid, $2, $3::jsonb)',
);
const FETCH_PENDING = prepared(
  'outbox_fetch_pending',
  `SELECT id::text AS id, subject, payload FROM outbox_message
    WHERE published_at IS NULL ORDER BY attempts, created_at LIMIT $1`,
);
const MARK_PUBLISHED = prepared(
  'outbox_mark_published',
  'UPDATE outbox_message SET published_at = now(), attempts = attempts + 1 WHERE id = ANY($1::uuid[])',
);
const MARK_FAILED = prepared(
  'outbox_mark_failed',
  'UPDATE outbox_message SET attempts = attempts + 1 WHERE id = ANY($1::uuid[])',
);

/** Written in the same transaction (or statement) as the change it describes; the relay publishes it later. */
export async function enqueue(run: SqlRunner, subject: string, payload: unknown, id: string = randomUUID()) {
  await run(ENQUEUE, [id, subject, JSON.stringify(payload)]);
  return id;
}

/**
 * Unpublished rows through the partial index on pending rows: fewest failed attempts first, then oldest,
 * so a row that cannot be published (a bus refusal) never holds back the ones behind it.
 */
export function fetchPending(run: SqlRunner, limit: number): Promise<OutboxRow[]> {
  return run<OutboxRow>(FETCH_PENDING, [limit]);
}

export async function markPublished(run: SqlRunner, ids: string[]) {
  await run(MARK_PUBLISHED, [ids]);
}

export async function markFailed(run: SqlRunner, ids: string[]) {
  await run(MARK_FAILED, [ids]);
}

/** Published rows are kept for a while (diagnosis), then dropped: JetStream and billing hold them. */
export async function purgePublished(db: Db, olderThan: Date) {
  const { count } = await db.outboxMessage.deleteMany({ where: { publishedAt: { lt: olderThan } } });
  return count;
}
