import type { OutboxRow } from '@tm/bus';
import { prepared, type SqlRunner, timeOrderedId } from '@tm/kit';

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

/** Written in the same transaction (or statement) as the change it describes; the relay publishes it later. */
export async function enqueue(
  run: SqlRunner,
  subject: string,
  payload: unknown,
  id: string = timeOrderedId(),
) {
  await run(ENQUEUE, [id, subject, JSON.stringify(payload)]);
  return id;
}

/**
 * Rows waiting to be published, fewest failed attempts first, then oldest, so a row that cannot be
 * published (a bus refusal) never holds back the ones behind it. The payload comes back as the JSON
 * text it was stored as and is published as it is.
 */
export function fetchPending(run: SqlRunner, limit: number): Promise<OutboxRow[]> {
  return run<OutboxRow>(FETCH_PENDING, [limit]);
}

/** A row leaves once JetStream has acknowledged it: from then on the stream (and billing) hold it. */
export async function removePublished(run: SqlRunner, ids: string[]) {
  await run(REMOVE_PUBLISHED, [ids]);
}

export async function markFailed(run: SqlRunner, ids: string[]) {
  await run(MARK_FAILED, [ids]);
}

/** Rows not yet published, for the backlog metric. */
export async function countPending(run: SqlRunner): Promise<number> {
  const [row] = await run<{ n: number }>(COUNT_PENDING, []);
  return row?.n ?? 0;
}
