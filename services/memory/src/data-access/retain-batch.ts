import { prepared, type SqlRunner } from '@tm/kit';
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
 * batch, so a claim names its write). Returns per write whether its key was claimed. One statement,
 * so one round trip, atomic on its own: if any write claimed its key but its event id was taken, the
 * statement fails with DUPLICATE_EVENT_MARKER and nothing of the batch stays (the caller then runs
 * each write alone, which refuses exactly that one).
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
  SELECT n::int AS n, claimed,
         CASE WHEN claimed AND NOT inserted THEN (SELECT $18::text FROM claim LIMIT 1)::int END AS refused
    FROM (SELECT i.n,
                 EXISTS (SELECT 1 FROM claim c WHERE c.tenant_id = i.tenant_id AND c.key = i.key) AS claimed,
                 EXISTS (SELECT 1 FROM rec r WHERE r.id = i.id) AS inserted
            FROM input i) AS outcome`,
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

/**
 * The write path's claimAndRetain, batched: concurrent writes are gathered for one turn of the event
 * loop and retained in one statement (measured: a BEGIN and a COMMIT round trip around it made a
 * batch take a third longer under load, and the writes in it waited that long). The outcome of each
 * write is exactly that of claimAndRetain: claimed, or not claimed (its key is taken: the caller
 * replays). If the batch fails (a taken event id, or anything else), each write goes again on its own
 * statement, so one bad write cannot fail the others.
 */
export function createRetainBatcher(run: SqlRunner) {
  let queue: Pending[] = [];
  let scheduled = false;

  const runAlone = (p: Pending) => claimAndRetain(run, p.input).then(p.resolve, p.reject);

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
    let outcomes: Array<{ n: number; claimed: boolean }>;
    try {
      outcomes = await run(CLAIM_AND_RETAIN_BATCH, [...columns(batch), DUPLICATE_EVENT_MARKER]);
    } catch {
      await Promise.all(batch.map(runAlone));
      return;
    }
    for (const o of outcomes) (batch[o.n - 1] as Pending).resolve({ claimed: o.claimed });
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
