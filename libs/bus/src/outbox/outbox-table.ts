import { prepared, type SqlRunner, timeOrderedId } from '@tm/kit';
import type { OutboxRow } from './outbox-relay.js';

/**
 * The statements on a service's `outbox_message` table (id uuid, subject, payload jsonb, created_at,
 * attempts; index on attempts, created_at): the same table in every service that publishes what it
 * commits (memory first; template, telemetry and billing later), each in its own database.
 * Every row is pending: a row is deleted once JetStream has acknowledged the message carrying it.
 */
const ENQUEUE = prepared(
  'outbox_enqueue',
  'INSERT INTO outbox_message (id, subject, payload) VALUES ($1::uuid, $2, $3::jsonb)',
);
const FETCH_PENDING = prepared(
  'outbox_fetch_pending',
  `SELECT id::text AS id, subject, payload::text AS payload FROM outbox_message
    ORDER BY attempts, created_at LIMIT $1`,
);
const REMOVE_PUBLISHED = prepared(
  'outbox_remove_published',
  'DELETE FROM outbox_message WHERE id = ANY($1::uuid[])',
);
const COUNT_PENDING = prepared('outbox_count_pending', 'SELECT count(*)::int AS n FROM outbox_message');
const MARK_FAILED = prepared(
  'outbox_mark_failed',
  'UPDATE outbox_message SET attempts = attempts + 1 WHERE id = ANY($1::uuid[])',
);

/** One message for the outbox, written with what it describes. */
export interface OutboxEntry {
  id: string;
  subject: string;
  payload: unknown;
}

/**
 * Written in the same transaction (or statement) as the change it describes; the relay publishes it
 * later. `id` is the row's, and the event's own id where the payload carries one (a consumer's
 * message id derived from it is then the same on every re-send).
 */
export async function enqueueOutbox(
  run: SqlRunner,
  subject: string,
  payload: unknown,
  id: string = timeOrderedId(),
): Promise<string> {
  await run(ENQUEUE, [id, subject, JSON.stringify(payload)]);
  return id;
}

/**
 * Rows waiting to be published, fewest failed attempts first, then oldest, so a row that cannot be
 * published (a bus refusal) never holds back the ones behind it. The payload comes back as the JSON
 * text it was stored as and is published as it is.
 */
export function fetchPendingOutbox(run: SqlRunner, limit: number): Promise<OutboxRow[]> {
  return run<OutboxRow>(FETCH_PENDING, [limit]);
}

/** A row leaves once JetStream has acknowledged it: from then on the stream (and its consumers) hold it. */
export async function removePublishedOutbox(run: SqlRunner, ids: string[]): Promise<void> {
  await run(REMOVE_PUBLISHED, [ids]);
}

export async function markOutboxFailed(run: SqlRunner, ids: string[]): Promise<void> {
  await run(MARK_FAILED, [ids]);
}

/** Rows not yet published, for the backlog metric. */
export async function countPendingOutbox(run: SqlRunner): Promise<number> {
  const [row] = await run<{ n: number }>(COUNT_PENDING, []);
  return row?.n ?? 0;
}
