import { prepared, type SqlRunner } from '@tm/kit';
import type { Prisma } from './generated/client.js';

export interface NewRecord {
  id: string;
  tenantId: string;
  userId: string;
  namespace: string;
  eventId: string;
  occurredAt: Date;
  text: string;
  terms: string[];
  source: Prisma.InputJsonValue | null;
  requestId: string;
}

export interface RetainInput {
  record: NewRecord;
  idempotency: { key: string; fingerprint: string; response: Prisma.InputJsonValue };
  usage: { id: string; subject: string; payload: Prisma.InputJsonValue };
}

/**
 * How the statement refuses itself without a stored function: casting this marker to an integer
 * fails, and the failure message carries the marker. (Inside a subquery, so the planner cannot fold
 * the cast, and fail, before the CASE is decided.)
 */
export const DUPLICATE_EVENT_MARKER = 'tm_duplicate_event';

/**
 * The hot path of a write, in one statement (one round trip, atomic on its own): claim the
 * idempotency key, insert the record and its recall postings only if the claim succeeded, enqueue the
 * usage row only if the record went in.
 *
 * - returns `claimed: false`: the key is taken. A concurrent claim of the same key blocks on the
 *   unique index until the holder's transaction ends, so the caller then reads a committed entry.
 * - fails with DUPLICATE_EVENT_MARKER in the error: the key was free but the event id already exists in the
 *   namespace; the whole statement, claim included, is rolled back.
 */
const CLAIM_AND_RETAIN = prepared(
  'memory_claim_and_retain',
  `
  WITH claim AS (
    INSERT INTO idempotency_entry (tenant_id, key, namespace, fingerprint, request_id, response)
    VALUES ($1, $2, $3, $4, $5, $6::jsonb)
    ON CONFLICT (tenant_id, key) DO NOTHING
    RETURNING 1
  ), rec AS (
    INSERT INTO memory_record (id, tenant_id, user_id, namespace, event_id, occurred_at, text, source, request_id)
    SELECT $7::uuid, $1, $8, $3, $9, $10::timestamptz, $11, $12::jsonb, $5
     WHERE EXISTS (SELECT 1 FROM claim)
    ON CONFLICT (tenant_id, namespace, event_id) DO NOTHING
    RETURNING 1
  ), postings AS (
    INSERT INTO memory_term (scope_key, term, occurred_at, memory_id)
    SELECT memory_scope_key($1, $3), term, $10::timestamptz, $7::uuid
      FROM unnest($16::text[]) AS term
     WHERE EXISTS (SELECT 1 FROM rec)
  ), usage AS (
    INSERT INTO outbox_message (id, subject, payload)
    SELECT $13::uuid, $14, $15::jsonb
     WHERE EXISTS (SELECT 1 FROM rec)
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM claim)::int AS claimed,
         CASE WHEN EXISTS (SELECT 1 FROM claim) AND NOT EXISTS (SELECT 1 FROM rec)
              THEN (SELECT $17::text FROM claim)::int END AS refused`,
);

/**
 * One write's values in the order both the single and the batched statement take them ($1-$15);
 * its terms ($16) go separately.
 */
export function retainValues(input: RetainInput): unknown[] {
  const { record: r, idempotency: i, usage: u } = input;
  return [
    r.tenantId,
    i.key,
    r.namespace,
    i.fingerprint,
    r.requestId,
    JSON.stringify(i.response),
    r.id,
    r.userId,
    r.eventId,
    r.occurredAt,
    r.text,
    r.source === null ? null : JSON.stringify(r.source),
    u.id,
    u.subject,
    JSON.stringify(u.payload),
  ];
}

export async function claimAndRetain(run: SqlRunner, input: RetainInput): Promise<{ claimed: boolean }> {
  const [row] = await run<{ claimed: number }>(CLAIM_AND_RETAIN, [
    ...retainValues(input),
    input.record.terms,
    DUPLICATE_EVENT_MARKER,
  ]);
  return { claimed: row?.claimed === 1 };
}

/** True when a database error is the statement's own duplicate-event refusal. */
export function isDuplicateEventRefusal(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    const c = e as {
      code?: unknown;
      originalCode?: unknown;
      message?: unknown;
      meta?: unknown;
      cause?: unknown;
    };
    const { originalMessage } = c as { originalMessage?: unknown };
    for (const m of [c.message, originalMessage])
      if (typeof m === 'string' && m.includes(DUPLICATE_EVENT_MARKER)) return true;
    e = (c.meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError ?? c.cause;
  }
  return false;
}
