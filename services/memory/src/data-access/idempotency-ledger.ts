import { prepared, type SqlRunner } from '@tm/kit';
import type { Prisma } from './generated/client.js';
import type { Db } from './prisma-client.js';

/*
 * The idempotency ledger, where a write is made exactly-once. A key is claimed in the same statement
 * that retains the write it guards, so claim, record, postings and usage row commit together or not at
 * all, in one round trip; a key found taken is read back here for the replay, and a write with
 * supersession completes its entry's response here once its relations are known.
 */

export interface NewRecord {
  id: string;
  tenantId: string;
  userId: string;
  namespace: string;
  eventId: string;
  occurredAt: Date;
  text: string;
  terms: string[];
  /**
   * Its terms as the index before stemming had them (tokenizeV1): posted only while its namespace
   * still ranks by that index (memory_reindex pending or indexing), which the statement decides.
   */
  legacyTerms: string[];
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
 * The writes the statement retains, one row each: their values ($1-$15, in retainValues' order) and
 * `n`, their place among them. One write's values go in as they are; many writes' as one array per
 * column, unnest()ed. (One write does not go through the arrays: pg escapes every value it puts in an
 * array literal, and preparing one write's parameters as arrays of one measured 17 µs of CPU against
 * 5 µs as plain values (response JSON, usage payload, the record id once per posting), where the
 * memory service spends about 140 µs per write in all.)
 */
const ONE_WRITE = `
    SELECT $1::text AS tenant_id, $2::text AS key, $3::text AS namespace, $4::text AS fingerprint,
           $5::text AS request_id, $6::text AS response, $7::uuid AS id, $8::text AS user_id,
           $9::text AS event_id, $10::timestamptz AS occurred_at, $11::text AS text, $12::text AS source,
           $13::uuid AS usage_id, $14::text AS usage_subject, $15::text AS usage_payload, 1::bigint AS n`;
const MANY_WRITES = `
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                         $7::uuid[], $8::text[], $9::text[], $10::timestamptz[], $11::text[], $12::text[],
                         $13::uuid[], $14::text[], $15::text[])
      WITH ORDINALITY AS i(tenant_id, key, namespace, fingerprint, request_id, response,
                           id, user_id, event_id, occurred_at, text, source,
                           usage_id, usage_subject, usage_payload, n)`;

/**
 * The hot path of a write, in one statement (one round trip, atomic on its own), for one write or
 * many: claim each write's idempotency key, insert its record, its recall postings and its count in its
 * namespace's record count (the N of recall's term weights) only if the claim
 * succeeded, enqueue its usage row only if the record went in. Keys are distinct within a statement, so
 * a claim names its write. Per write (`n`), whether its key was claimed:
 *
 * - `claimed: false`: the key is taken. A concurrent claim of the same key blocks on the unique
 *   index until the holder's transaction ends, so the caller then reads a committed entry.
 * - fails with DUPLICATE_EVENT_MARKER in the error: a write's key was free but its event id already
 *   exists in the namespace; the whole statement, every claim included, is rolled back.
 *
 * `postings` are the (record id, term) pairs: one write's terms ($16) with its id, or many writes'
 * pairs as two arrays ($16, $17); `legacyPostings` likewise its old index's terms ($17, or $18 and
 * $19). The marker is the last parameter.
 *
 * A namespace still ranking by its old index (its memory_reindex row pending or indexing) gets the
 * old postings too, so its recall finds the write before the re-index completes. Decided here, not
 * before: the row is read and KEY SHARE locked in this statement, so the worker's move to `cleaning`
 * (an update, which this lock does not block) is either seen here, or waited for by its final
 * FOR UPDATE, which then finds and removes these postings. Any other namespace pays one probe of the
 * row's primary key.
 *
 * - `fenced: true`: the write's namespace is being deleted (a running namespace_deletion job, seen by
 *   this statement's own snapshot): nothing of it is claimed or stored, and the caller refuses it (409).
 *   Checked here rather than only in an instance's cached list, so a deletion started on another
 *   instance fences from its commit; a statement whose snapshot came just before that commit holds its
 *   lock on memory_record until it commits, and the job's completion waits for that lock
 *   (namespace-deletion.ts), so the record is removed with the namespace. One probe of the jobs'
 *   partial unique index per write.
 */
function claimAndRetainStatement(
  name: string,
  writes: string,
  postings: string,
  legacyPostings: string,
  marker: string,
) {
  return prepared(
    name,
    `
  WITH input AS (${writes}
  ), fence AS MATERIALIZED (
    SELECT d.tenant_id, d.namespace FROM namespace_deletion d
     WHERE (d.tenant_id, d.namespace) IN (SELECT tenant_id, namespace FROM input)
       AND d.status = 'in_progress'
  ), claim AS (
    INSERT INTO idempotency_entry (tenant_id, key, namespace, fingerprint, request_id, response)
    SELECT tenant_id, key, namespace, fingerprint, request_id, response::jsonb FROM input i
     WHERE NOT EXISTS (SELECT 1 FROM fence f WHERE f.tenant_id = i.tenant_id AND f.namespace = i.namespace)
     ORDER BY n
    ON CONFLICT (tenant_id, key) DO NOTHING
    RETURNING tenant_id, key
  ), rec AS (
    INSERT INTO memory_record (id, tenant_id, user_id, namespace, event_id, occurred_at, text, source, request_id)
    SELECT i.id, i.tenant_id, i.user_id, i.namespace, i.event_id, i.occurred_at, i.text, i.source::jsonb, i.request_id
      FROM input i JOIN claim c ON c.tenant_id = i.tenant_id AND c.key = i.key
     ORDER BY i.n
    ON CONFLICT (tenant_id, namespace, event_id) DO NOTHING
    RETURNING id, tenant_id, namespace, occurred_at
  ), postings AS (
    INSERT INTO memory_term (scope_key, term, occurred_at, memory_id)
    SELECT memory_scope_key_v2(r.tenant_id, r.namespace), p.term, r.occurred_at, r.id
      FROM rec r JOIN ${postings} AS p(memory_id, term) ON p.memory_id = r.id
  ), legacy AS MATERIALIZED (
    SELECT x.tenant_id, x.namespace FROM memory_reindex x
     WHERE (x.tenant_id, x.namespace) IN (SELECT tenant_id, namespace FROM input)
       AND x.status IN ('pending', 'indexing')
       FOR KEY SHARE
  ), legacy_postings AS (
    INSERT INTO memory_term (scope_key, term, occurred_at, memory_id)
    SELECT memory_scope_key(r.tenant_id, r.namespace), p.term, r.occurred_at, r.id
      FROM rec r JOIN legacy l ON l.tenant_id = r.tenant_id AND l.namespace = r.namespace
      JOIN ${legacyPostings} AS p(memory_id, term) ON p.memory_id = r.id
  ), counted AS (
    INSERT INTO memory_scope_count (scope_key, shard, records)
    SELECT memory_scope_key_v2(r.tenant_id, r.namespace), (pg_backend_pid() % 64)::smallint, count(*)
      FROM rec r GROUP BY r.tenant_id, r.namespace
     -- one lock order for every statement, so two batches of several namespaces never deadlock
     ORDER BY 1
    ON CONFLICT (scope_key, shard) DO UPDATE SET records = memory_scope_count.records + excluded.records
  ), usage AS (
    INSERT INTO outbox_message (id, subject, payload)
    SELECT i.usage_id, i.usage_subject, i.usage_payload::jsonb FROM input i JOIN rec r ON r.id = i.id
  )
  SELECT n::int AS n, claimed, fenced,
         CASE WHEN claimed AND NOT inserted THEN (SELECT ${marker}::text FROM claim LIMIT 1)::int END AS refused
    FROM (SELECT i.n,
                 EXISTS (SELECT 1 FROM claim c WHERE c.tenant_id = i.tenant_id AND c.key = i.key) AS claimed,
                 EXISTS (SELECT 1 FROM rec r WHERE r.id = i.id) AS inserted,
                 EXISTS (SELECT 1 FROM fence f WHERE f.tenant_id = i.tenant_id AND f.namespace = i.namespace)
                   AS fenced
            FROM input i) AS outcome`,
  );
}

const CLAIM_AND_RETAIN_ONE = claimAndRetainStatement(
  'memory_claim_and_retain',
  ONE_WRITE,
  '(SELECT $7::uuid, term FROM unnest($16::text[]) AS term)',
  '(SELECT $7::uuid, term FROM unnest($17::text[]) AS term)',
  '$18',
);
// The prepared statement's name stays as it was: operators may find it in PostgreSQL's logs and views.
const CLAIM_AND_RETAIN_MANY = claimAndRetainStatement(
  'memory_claim_and_retain_batch',
  MANY_WRITES,
  'unnest($16::uuid[], $17::text[])',
  'unnest($18::uuid[], $19::text[])',
  '$20',
);

/** One write's values in the order the statement takes them ($1-$15); its terms go separately. */
function retainValues(input: RetainInput): unknown[] {
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

function manyWritesParameters(inputs: readonly RetainInput[]): unknown[] {
  const columns: unknown[][] = Array.from({ length: 19 }, () => []);
  for (const input of inputs) {
    const values = retainValues(input);
    for (let c = 0; c < values.length; c++) columns[c]?.push(values[c]);
    for (const term of input.record.terms) {
      columns[15]?.push(input.record.id);
      columns[16]?.push(term);
    }
    for (const term of input.record.legacyTerms) {
      columns[17]?.push(input.record.id);
      columns[18]?.push(term);
    }
  }
  return [...columns, DUPLICATE_EVENT_MARKER];
}

/**
 * Claim and retain these writes in one statement. Per write, `n` (its place in `inputs`, from 1) and
 * whether its key was claimed; the rows come in no particular order.
 */
export async function claimAndRetain(
  run: SqlRunner,
  inputs: readonly RetainInput[],
): Promise<Array<{ n: number; claimed: boolean; fenced: boolean }>> {
  const [first] = inputs;
  if (inputs.length === 1 && first) {
    const values = retainValues(first);
    values.push(first.record.terms, first.record.legacyTerms, DUPLICATE_EVENT_MARKER);
    return run(CLAIM_AND_RETAIN_ONE, values);
  }
  return run(CLAIM_AND_RETAIN_MANY, manyWritesParameters(inputs));
}

/** A write's claim: its key claimed (and its record stored), or its namespace being deleted. */
export interface ClaimOutcome {
  claimed: boolean;
  fenced: boolean;
}

/** A single write: the same statement, for one. */
export async function claimAndRetainOne(run: SqlRunner, input: RetainInput): Promise<ClaimOutcome> {
  const [outcome] = await claimAndRetain(run, [input]);
  return { claimed: outcome?.claimed === true, fenced: outcome?.fenced === true };
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

/** The entry a taken key holds: the original write's fingerprint and response, for the replay. */
export function findEntry(db: Db, tenantId: string, key: string) {
  return db.idempotencyEntry.findUnique({ where: { tenantId_key: { tenantId, key } } });
}

/** A write with supersession stores its final response (with the relations) on the entry it claimed. */
export async function completeEntry(db: Db, tenantId: string, key: string, response: Prisma.InputJsonValue) {
  await db.idempotencyEntry.update({ where: { tenantId_key: { tenantId, key } }, data: { response } });
}
