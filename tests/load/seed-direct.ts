import pg from 'pg';
// The bench writes the rows the write path writes, so it uses the write path's own id and tokenizer.
import { timeOrderedId } from '../../libs/kit/src/ids.js';
import { tokenize } from '../../services/memory/src/domain/tokenize.js';
import { memoryDatabaseUrl } from './baseline-database.js';
import { writeRequests } from './memory-api.js';
import type { SeedOutcome } from './seed.js';
import type { TextCorpus } from './text-corpus.js';

/** Records per statement pair (records, then their postings): about 15 postings each. */
const BATCH = 5_000;
/** Statements in flight at once, each on its own connection. */
const CONNECTIONS = 2;

const INSERT_RECORDS = `
  INSERT INTO memory_record (id, tenant_id, user_id, namespace, event_id, occurred_at, text, source, request_id)
  SELECT id, $1, $2, $3, event_id, occurred_at, text, NULL, $4
    FROM unnest($5::uuid[], $6::text[], $7::timestamptz[], $8::text[]) AS r(id, event_id, occurred_at, text)`;
// Sorted by the key, so each batch walks the index once instead of landing at random.
const INSERT_POSTINGS = `
  INSERT INTO memory_term (scope_key, term, occurred_at, memory_id)
  SELECT memory_scope_key_v2($1, $2), term, occurred_at, memory_id
    FROM unnest($3::text[], $4::timestamptz[], $5::uuid[]) AS p(term, occurred_at, memory_id)
   ORDER BY 1, 2, 3, 4`;
// The namespace's record count, the N of recall's weights, as the write statement keeps it.
const COUNT_RECORDS = `
  INSERT INTO memory_scope_count (scope_key, shard, records) VALUES (memory_scope_key_v2($1, $2), 0, $3)
  ON CONFLICT (scope_key, shard) DO UPDATE SET records = memory_scope_count.records + excluded.records`;

interface Scope {
  tenantId: string;
  userId: string;
}

/**
 * Grow `namespace` by `count` records straight into the memory database: the record rows and recall
 * postings the write path makes for a plain write (its tokenizer, its id scheme, its scope key) and
 * their count in the namespace's record count, in
 * batches, without idempotency entries or usage (nobody replays or is billed for bench data). One write
 * goes through the API first, so the tenant and user are the key's own; the rest follow it.
 * `npm run bench -- --seed direct` uses this: 1M records in minutes instead of an hour of API writes.
 */
export async function seedDirect(
  target: { baseUrl: string; apiKey: string; namespace: string; keyPrefix: string },
  corpus: TextCorpus,
  count: number,
  onProgress: (message: string) => void = () => {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<SeedOutcome> {
  const started = performance.now();
  const pool = new pg.Pool({ connectionString: memoryDatabaseUrl(env), max: CONNECTIONS });
  try {
    const scope = await anchorWrite(target, corpus, pool);
    let done = 1;
    let nextReport = 100_000;
    const inFlight = new Set<Promise<void>>();
    for (let from = 1; from < count; from += BATCH) {
      const size = Math.min(BATCH, count - from);
      const batch = insertBatch(pool, scope, target, corpus, `${target.keyPrefix}-${from}`, size).then(() => {
        inFlight.delete(batch);
        done += size;
        if (done >= nextReport || done === count) {
          nextReport += 100_000;
          const seconds = (performance.now() - started) / 1000;
          onProgress(
            `seeded ${done}/${count} into ${target.namespace} directly (${(done / seconds).toFixed(0)} records/s)`,
          );
        }
      });
      inFlight.add(batch);
      if (inFlight.size >= CONNECTIONS) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    const seconds = (performance.now() - started) / 1000;
    return { retained: count, seconds, rps: count / seconds, failed: 0 };
  } finally {
    await pool.end();
  }
}

/** One write through the API; its row names the tenant and user the key writes as. */
async function anchorWrite(
  target: { baseUrl: string; apiKey: string; namespace: string; keyPrefix: string },
  corpus: TextCorpus,
  pool: pg.Pool,
): Promise<Scope> {
  const request = writeRequests(target.apiKey, target.namespace, corpus, `${target.keyPrefix}-anchor`);
  const { body, headers } = request.next();
  const send = () =>
    fetch(`${target.baseUrl}${request.path}`, {
      method: 'POST',
      headers: { ...request.headers, ...headers, 'content-type': 'application/json' },
      body,
    });
  let res = await send();
  // The batch scenarios before it may have spent the tenant's rate: the same write again once allowed.
  for (let attempt = 1; res.status === 429 && attempt <= 10; attempt++) {
    const retryAfter = Number(res.headers.get('retry-after'));
    await new Promise((r) =>
      setTimeout(r, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1_000 : 1_000),
    );
    res = await send();
  }
  if (!res.ok) throw new Error(`The anchor write was refused: ${res.status} ${await res.text()}`);
  const eventId = (JSON.parse(body) as { event: { event_id: string } }).event.event_id;
  const { rows } = await pool.query<{ tenant_id: string; user_id: string }>(
    'SELECT tenant_id, user_id FROM memory_record WHERE namespace = $1 AND event_id = $2',
    [target.namespace, eventId],
  );
  const row = rows[0];
  if (!row || rows.length > 1) throw new Error(`Found ${rows.length} anchor records in ${target.namespace}`);
  return { tenantId: row.tenant_id, userId: row.user_id };
}

async function insertBatch(
  pool: pg.Pool,
  scope: Scope,
  target: { namespace: string },
  corpus: TextCorpus,
  keyPrefix: string,
  size: number,
): Promise<void> {
  const ids: string[] = [];
  const eventIds: string[] = [];
  const times: string[] = [];
  const texts: string[] = [];
  const postings: { terms: string[]; times: string[]; ids: string[] } = { terms: [], times: [], ids: [] };
  for (let i = 0; i < size; i++) {
    const id = timeOrderedId();
    const occurredAt = corpus.occurredAt();
    const text = corpus.text();
    ids.push(id);
    eventIds.push(`${keyPrefix}-${i}`);
    times.push(occurredAt);
    texts.push(text);
    for (const term of tokenize(text)) {
      postings.terms.push(term);
      postings.times.push(occurredAt);
      postings.ids.push(id);
    }
  }
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(INSERT_RECORDS, [
      scope.tenantId,
      scope.userId,
      target.namespace,
      `seed-${keyPrefix}`,
      ids,
      eventIds,
      times,
      texts,
    ]);
    await client.query(INSERT_POSTINGS, [
      scope.tenantId,
      target.namespace,
      postings.terms,
      postings.times,
      postings.ids,
    ]);
    await client.query(COUNT_RECORDS, [scope.tenantId, target.namespace, size]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
