import { prepared, type SqlRunner } from '@tm/kit';
import type pg from 'pg';
import {
  claimAndRetain,
  DUPLICATE_EVENT_MARKER,
  type RetainInput,
  retainValues,
} from './retain-statement.js';

/** Writes that arrive in the same turn of the event loop share one statement, up to this many. */
const MAX_BATCH = 64;

/**
 * claimAndRetain for many writes at once: the same claim → record → postings → usage chain over
 * unnest()ed columns, one row per write (`n`, its place in the batch; keys are distinct within a
 * batch, so a claim names its write). Returns per write whether its key was claimed and whether its
 * record went in; claimed but not inserted means its event id was taken, and the caller withdraws that
 * claim before committing.
 */
const CLAIM_AND_RETAIN_BATCH = prepared(
  'memory_claim_and_retain_batch',
  `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                         $7::uuid[], $8::text[], $9::text[], $10::timestamptz[], $11::text[], $12::text[],
                         $13::uuid[], $14::text[], $15::text[])
      WITH ORDINALITY AS i(tenant_id, key, namespace, fingerprint, request_id, response,
                           id, user_id, event_id, occurred_at, text, source,
                           usage_id, usage_subject, usage_payload, n)
  ), claim AS (
    INSERT INTO idempotency_entry (tenant_id, key, namespace, fingerprint, request_id, response)
    SELECT tenant_id, key, namespace, fingerprint, request_id, response::jsonb FROM input ORDER BY n
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
    SELECT memory_scope_key(r.tenant_id, r.namespace), p.term, r.occurred_at, r.id
      FROM rec r JOIN unnest($16::uuid[], $17::text[]) AS p(memory_id, term) ON p.memory_id = r.id
  ), usage AS (
    INSERT INTO outbox_message (id, subject, payload)
    SELECT i.usage_id, i.usage_subject, i.usage_payload::jsonb FROM input i JOIN rec r ON r.id = i.id
  )
  SELECT i.n::int AS n,
         EXISTS (SELECT 1 FROM claim c WHERE c.tenant_id = i.tenant_id AND c.key = i.key) AS claimed,
         EXISTS (SELECT 1 FROM rec r WHERE r.id = i.id) AS inserted
    FROM input i`,
);

const WITHDRAW_CLAIMS = prepared(
  'memory_withdraw_claims',
  'DELETE FROM idempotency_entry WHERE (tenant_id, key) IN (SELECT * FROM unnest($1::text[], $2::text[]))',
);

interface Pending {
  input: RetainInput;
  resolve: (outcome: { claimed: boolean }) => void;
  reject: (err: unknown) => void;
}

function columns(batch: Pending[]): unknown[][] {
  const cols: unknown[][] = Array.from({ length: 17 }, () => []);
  for (const { input } of batch) {
    for (const [c, value] of retainValues(input).entries()) cols[c]?.push(value);
    for (const term of input.record.terms) {
      cols[15]?.push(input.record.id);
      cols[16]?.push(term);
    }
  }
  return cols;
}

const duplicateEvent = () => new Error(`event id already retained (${DUPLICATE_EVENT_MARKER})`);

/**
 * The write path's claimAndRetain, batched: concurrent writes are gathered for one turn of the event
 * loop and retained in one transaction (one statement, plus withdrawing claims whose event id was
 * taken). The outcome of each write is exactly that of claimAndRetain: claimed, not claimed (its key is
 * taken: the caller replays), or refused as a duplicate event. If the batch fails, each write goes
 * again on its own statement, so one bad write cannot fail the others.
 */
export function createRetainBatcher(pool: pg.Pool, single: SqlRunner) {
  let queue: Pending[] = [];
  let scheduled = false;

  const runAlone = (p: Pending) => claimAndRetain(single, p.input).then(p.resolve, p.reject);

  const runBatch = async (pending: Pending[]) => {
    // A key twice in one batch (a client retrying while its first call is in flight): the later ones
    // wait for the batch, then find the key taken and replay, exactly as they would on their own.
    const seen = new Set<string>();
    const batch: Pending[] = [];
    const later: Pending[] = [];
    for (const p of pending) {
      const id = `${p.input.record.tenantId}\u0000${p.input.idempotency.key}`;
      (seen.has(id) ? later : batch).push(p);
      seen.add(id);
    }
    await runUnique(batch);
    await Promise.all(later.map(runAlone));
  };

  const runUnique = async (batch: Pending[]) => {
    if (batch.length === 1) return runAlone(batch[0] as Pending);
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    let outcomes: Array<{ n: number; claimed: boolean; inserted: boolean }>;
    try {
      await client.query('BEGIN');
      outcomes = (await client.query({ ...CLAIM_AND_RETAIN_BATCH, values: columns(batch) })).rows;
      const withdrawn = outcomes.filter((o) => o.claimed && !o.inserted).map((o) => batch[o.n - 1]?.input);
      if (withdrawn.length) {
        await client.query({
          ...WITHDRAW_CLAIMS,
          values: [withdrawn.map((i) => i?.record.tenantId), withdrawn.map((i) => i?.idempotency.key)],
        });
      }
      await client.query('COMMIT');
      client.release();
    } catch {
      const broken = await client.query('ROLLBACK').then(
        () => false,
        () => true,
      );
      client.release(broken);
      await Promise.all(batch.map(runAlone));
      return;
    }
    for (const o of outcomes) {
      const p = batch[o.n - 1] as Pending;
      if (o.claimed && !o.inserted) p.reject(duplicateEvent());
      else p.resolve({ claimed: o.claimed });
    }
  };

  const flush = () => {
    scheduled = false;
    const batch = queue;
    queue = [];
    if (batch.length) void runBatch(batch);
  };

  return (input: RetainInput) =>
    new Promise<{ claimed: boolean }>((resolve, reject) => {
      queue.push({ input, resolve, reject });
      if (queue.length >= MAX_BATCH) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
