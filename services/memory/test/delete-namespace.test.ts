import { randomUUID } from 'node:crypto';
import { poolRunner } from '@tm/kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { claimAndRetainOne, type RetainInput } from '../src/data-access/idempotency-ledger.js';
import { runDeletionBatch, startDeletion } from '../src/data-access/namespace-deletion.js';
import { tokenize } from '../src/domain/tokenize.js';

/**
 * A namespace deletion job's batches, with batches small enough that a few dozen records take many:
 * each commits its counts with its rows, the job's totals add up to the namespace, and nothing of a
 * neighbour goes. The rows are written here as the write path writes them (postings are the tokenized
 * text at the record's event time). Through the gateway, with the worker: tests/e2e/memory/memory-delete*.
 */
const tenantId = `delete-${randomUUID()}`;
const RECORDS = 45;
const ENTRIES = 60;
const RELATIONS = 4;
let pool: pg.Pool;

async function seed(namespace: string, owner = tenantId) {
  for (let i = 0; i < RECORDS; i++) {
    const id = randomUUID();
    const text = `note ${i} about the ${i % 2 ? 'red' : 'blue'} door`;
    const at = new Date(Date.UTC(2026, 0, 1, 0, i % 7)).toISOString();
    await pool.query(
      `INSERT INTO memory_record (id, tenant_id, user_id, namespace, event_id, occurred_at, text, request_id)
       VALUES ($1, $2, 'u', $3, $4, $5, $6, 'r')`,
      [id, owner, namespace, `e${i}`, at, text],
    );
    await pool.query(
      `INSERT INTO memory_term (scope_key, term, occurred_at, memory_id)
       SELECT memory_scope_key_v2($1, $2), term, $3, $4 FROM unnest($5::text[]) AS term`,
      [owner, namespace, at, id, tokenize(text)],
    );
  }
  await pool.query(
    `INSERT INTO idempotency_entry (tenant_id, key, namespace, fingerprint, request_id)
     SELECT $1, $2 || '-' || i, $2, 'f', 'r' FROM generate_series(1, $3::int) AS i`,
    [owner, namespace, ENTRIES],
  );
  await pool.query(
    `INSERT INTO supersession_relation (id, tenant_id, namespace, superseding_event_id, superseding_memory_id,
                                        target_event_id, status)
     SELECT gen_random_uuid(), $1, $2, 'e' || i, gen_random_uuid(), 'gone', 'unresolved'
       FROM generate_series(1, $3::int) AS i`,
    [owner, namespace, RELATIONS],
  );
}

async function left(namespace: string, owner = tenantId) {
  const { rows } = await pool.query<{
    records: number;
    postings: number;
    entries: number;
    relations: number;
    progress: number;
  }>(
    `SELECT (SELECT count(*)::int FROM memory_record WHERE tenant_id = $1 AND namespace = $2) AS records,
            (SELECT count(*)::int FROM memory_term
              WHERE scope_key IN (memory_scope_key_v2($1, $2), memory_scope_key($1, $2))) AS postings,
            (SELECT count(*)::int FROM idempotency_entry WHERE tenant_id = $1 AND namespace = $2) AS entries,
            (SELECT count(*)::int FROM supersession_relation WHERE tenant_id = $1 AND namespace = $2) AS relations,
            (SELECT count(*)::int FROM namespace_deletion
               WHERE tenant_id = $1 AND namespace = $2 AND status = 'in_progress') AS progress`,
    [owner, namespace],
  );
  return rows[0];
}

beforeAll(() => {
  pool = new pg.Pool({ connectionString: inject('stack').memoryDbUrl, max: 2 });
});

afterAll(async () => {
  await pool.end();
});

/** Run batches until no job is waiting; how many ran. */
async function runAll(sizes: { records: number; postings: number }) {
  let batches = 0;
  while (await runDeletionBatch(pool, sizes)) batches++;
  return batches;
}

describe('namespace deletion batches', () => {
  it('when a namespace needs many batches, then each commits its part and the job adds up to the namespace', async () => {
    await seed('big');
    await seed('neighbour');
    const { job } = await startDeletion(poolRunner(pool), {
      id: randomUUID(),
      tenantId,
      namespace: 'big',
      requestId: 'r1',
    });
    const postings = (await left('big'))?.postings ?? 0;

    // One batch, then a crash: what it removed stays removed, and the job says so.
    await runDeletionBatch(pool, { records: 10, postings: 40 });
    expect(await left('big')).toMatchObject({ records: RECORDS, postings: postings - 40, progress: 1 });

    const batches = await runAll({ records: 10, postings: 40 });

    const { rows } = await pool.query(
      `SELECT status::text, records_total::int, records::int, postings::int, relations::int,
              idempotency_entries::int, batches FROM namespace_deletion WHERE id = $1`,
      [job.id],
    );
    // 1 + ceil(postings / 40) posting batches, 1 finding no old postings (a namespace written since
    // the stemmed index has none), 5 of records, 7 of entries, 1 of relations.
    expect(batches + 1).toBe(Math.floor(postings / 40) + 1 + 1 + 5 + 7 + 1);
    expect(rows[0]).toEqual({
      status: 'completed',
      records_total: RECORDS,
      records: RECORDS,
      postings,
      relations: RELATIONS,
      idempotency_entries: ENTRIES,
      batches: batches + 1,
    });
    expect(await left('big')).toEqual({ records: 0, postings: 0, entries: 0, relations: 0, progress: 0 });
    expect(await left('neighbour')).toMatchObject({
      records: RECORDS,
      entries: ENTRIES,
      relations: RELATIONS,
    });
  });

  it('when a record lands behind the cursors while the job runs, then the job sweeps again and removes it', async () => {
    await seed('raced');
    await startDeletion(poolRunner(pool), {
      id: randomUUID(),
      tenantId,
      namespace: 'raced',
      requestId: 'r2',
    });
    // Past the postings: a write that raced the start lands now, its postings behind the cursor.
    while (
      (await pool.query("SELECT 1 FROM namespace_deletion WHERE namespace = 'raced' AND phase = 'postings'"))
        .rowCount
    )
      await runDeletionBatch(pool, { records: 10, postings: 40 });
    await pool.query(
      `WITH r AS (INSERT INTO memory_record (id, tenant_id, user_id, namespace, event_id, occurred_at, text, request_id)
                  VALUES (gen_random_uuid(), $1, 'u', 'raced', 'a-late', now(), 'late note', 'r') RETURNING id, occurred_at)
       INSERT INTO memory_term (scope_key, term, occurred_at, memory_id)
       SELECT memory_scope_key($1, 'raced'), t, r.occurred_at, r.id FROM r, unnest(ARRAY['late', 'note']) AS t`,
      [tenantId],
    );

    await runAll({ records: 10, postings: 40 });

    expect(await left('raced')).toEqual({ records: 0, postings: 0, entries: 0, relations: 0, progress: 0 });
    const { rows } = await pool.query(
      "SELECT records::int, records_total::int FROM namespace_deletion WHERE namespace = 'raced'",
    );
    expect(rows[0]).toEqual({ records: RECORDS + 1, records_total: RECORDS + 1 });
  });
});

/** A write as the write path hands it to the ledger's statement. */
function writeInput(namespace: string, eventId: string): RetainInput {
  const id = randomUUID();
  return {
    record: {
      id,
      tenantId,
      userId: 'u',
      namespace,
      eventId,
      occurredAt: new Date(),
      text: 'a note written during the deletion',
      terms: tokenize('a note written during the deletion'),
      legacyTerms: [],
      source: null,
      requestId: 'r',
    },
    idempotency: { key: `k-${eventId}`, fingerprint: 'f', response: {} },
    usage: { id: randomUUID(), subject: 'usage.v1.recorded', payload: {} },
  };
}

describe('a write racing a namespace deletion', () => {
  it('when the write comes after the deletion started on another instance (not in its cached list), then its own statement refuses it and nothing is stored', async () => {
    await seed('fenced');
    await startDeletion(poolRunner(pool), {
      id: randomUUID(),
      tenantId,
      namespace: 'fenced',
      requestId: 'r3',
    });

    const outcome = await claimAndRetainOne(poolRunner(pool), writeInput('fenced', 'late-1'));

    expect(outcome).toEqual({ claimed: false, fenced: true });
    const { rows } = await pool.query(
      `SELECT (SELECT count(*)::int FROM memory_record WHERE tenant_id = $1 AND event_id = 'late-1') AS records,
              (SELECT count(*)::int FROM idempotency_entry WHERE tenant_id = $1 AND key = 'k-late-1') AS entries`,
      [tenantId],
    );
    expect(rows[0]).toEqual({ records: 0, entries: 0 });
    await runAll({ records: 10, postings: 40 });
  });

  it('when a write that began before the deletion commits only as the job ends, then the job waits for it and removes its record too', async () => {
    await seed('in-flight');
    // A write whose statement began before the DELETE (so it did not see the job), still uncommitted.
    const writer = await pool.connect();
    await writer.query('BEGIN');
    await writer.query(
      `INSERT INTO memory_record (id, tenant_id, user_id, namespace, event_id, occurred_at, text, request_id)
       VALUES (gen_random_uuid(), $1, 'u', 'in-flight', 'slow', now(), 'a slow write', 'r')`,
      [tenantId],
    );
    await startDeletion(poolRunner(pool), {
      id: randomUUID(),
      tenantId,
      namespace: 'in-flight',
      requestId: 'r4',
    });

    const running = runAll({ records: 10, postings: 40 });
    // The job's completion waits on the write's lock; the write commits only then (asked on the
    // writer's own connection: the pool's other one is the job's).
    await expect
      .poll(
        async () =>
          (
            await writer.query(
              "SELECT 1 FROM pg_locks WHERE NOT granted AND relation = 'memory_record'::regclass AND mode = 'ShareLock'",
            )
          ).rowCount,
        { timeout: 60_000, interval: 20 },
      )
      .toBe(1);
    await writer.query('COMMIT');
    writer.release();
    await running;

    expect(await left('in-flight')).toEqual({
      records: 0,
      postings: 0,
      entries: 0,
      relations: 0,
      progress: 0,
    });
  });
});
