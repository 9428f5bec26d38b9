import { randomBytes, randomUUID } from 'node:crypto';
import {
  CONTRACT_VERSION,
  type MemoryRecallMessage,
  type MemoryWriteMessage,
  type RecallResponse,
} from '@tm/contracts';
import { createPgPool, timeOrderedId } from '@tm/kit';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  cloneDatabase,
  databaseUrl,
  dropDatabase,
  templateDatabase,
} from '../../../tests/e2e/support/private-databases.js';
import { runDeletionBatch, startDeletion } from '../src/data-access/namespace-deletion.js';
import {
  type ReindexBatch,
  type ReindexSizes,
  reindexProgress,
  runReindexBatch,
} from '../src/data-access/namespace-reindex.js';
import { closePrisma, getPool, getSql, initPrisma } from '../src/data-access/prisma-client.js';
import { MEMORY_SESSION_SETTINGS } from '../src/data-access/session-settings.js';
import { forgetMemory } from '../src/domain/forget-memory.js';
import { recallMemory } from '../src/domain/recall-memory.js';
import { tokenize } from '../src/domain/tokenize.js';
import { tokenizeV1 } from '../src/domain/tokenize-v1.js';
import { writeMemory } from '../src/domain/write-memory.js';
import { writeMemoryBatch } from '../src/domain/write-memory-batch.js';
import { startReindexWorker } from '../src/entry-points/jobs/reindex-poller.js';

/**
 * The background re-index of namespaces written before recall matched on stems, against a database
 * of its own (a copy of the run's migrated template), so the worker's "any namespace with work left"
 * sees only this file's. A legacy namespace is seeded as an upgraded database holds it: records, the
 * old postings (tokenizeV1 under memory_scope_key), its record count, and a pending memory_reindex
 * row. Writes, recalls and forgets go through the service's own domain functions.
 */
const database = `tmt_${inject('runId')}_reindex_${randomBytes(3).toString('hex')}`;
const SMALL: ReindexSizes = { records: 7, postings: 40 };
const deps = { pricingVersion: 'test' };
let pool: pg.Pool;

const WORDS = [
  'dog',
  'dogs',
  'walked',
  'walking',
  'walks',
  'garden',
  'gardens',
  'rain',
  'raining',
  'bought',
  'buy',
  'blue',
  'door',
  'doors',
  'went',
  'going',
  'the',
  'a',
  'of',
  'with',
];
const CUES = ['dogs walking', 'walked the dog', 'buying doors', 'rain in gardens', 'going blue'];

/** A small seeded generator (mulberry32), so every run writes the same texts. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Seeded {
  id: string;
  eventId: string;
  occurredAt: Date;
  text: string;
}

function corpus(size: number, seed = 20261129): Seeded[] {
  const next = random(seed);
  return Array.from({ length: size }, (_, i) => ({
    id: timeOrderedId(),
    eventId: `e${String(i).padStart(4, '0')}`,
    occurredAt: new Date(Date.UTC(2026, 0, 1) + (i % 13) * 60_000),
    text: Array.from(
      { length: 3 + Math.floor(next() * 6) },
      () => WORDS[Math.floor(next() * WORDS.length)],
    ).join(' '),
  }));
}

/** Records with postings of one index (`v1`: as before the upgrade, `v2`: as the write path now). */
async function seed(tenantId: string, namespace: string, records: Seeded[], index: 'v1' | 'v2') {
  await pool.query(
    `INSERT INTO memory_record (id, tenant_id, user_id, namespace, event_id, occurred_at, text, request_id)
     SELECT id, $1, 'u', $2, event_id, occurred_at, text, 'r'
       FROM unnest($3::uuid[], $4::text[], $5::timestamptz[], $6::text[]) AS r(id, event_id, occurred_at, text)`,
    [
      tenantId,
      namespace,
      records.map((r) => r.id),
      records.map((r) => r.eventId),
      records.map((r) => r.occurredAt),
      records.map((r) => r.text),
    ],
  );
  const tokenizer = index === 'v1' ? tokenizeV1 : tokenize;
  const postings = records.flatMap((r) => tokenizer(r.text).map((term) => ({ r, term })));
  await pool.query(
    `INSERT INTO memory_term (scope_key, term, occurred_at, memory_id)
     SELECT CASE WHEN $6 = 'v1' THEN memory_scope_key($1, $2) ELSE memory_scope_key_v2($1, $2) END,
            term, occurred_at, memory_id
       FROM unnest($3::text[], $4::timestamptz[], $5::uuid[]) AS p(term, occurred_at, memory_id)`,
    [
      tenantId,
      namespace,
      postings.map((p) => p.term),
      postings.map((p) => p.r.occurredAt),
      postings.map((p) => p.r.id),
      index,
    ],
  );
  await pool.query(
    `INSERT INTO memory_scope_count (scope_key, shard, records) VALUES (memory_scope_key_v2($1, $2), 0, $3)`,
    [tenantId, namespace, records.length],
  );
}

/** A namespace as the upgrade left it: old postings only, and a pending re-index. */
async function seedLegacy(tenantId: string, namespace: string, records: Seeded[]) {
  await seed(tenantId, namespace, records, 'v1');
  await pool.query(`INSERT INTO memory_reindex (tenant_id, namespace, records_total) VALUES ($1, $2, $3)`, [
    tenantId,
    namespace,
    records.length,
  ]);
}

const scopeOf = (tenantId: string) => ({
  tenant_id: tenantId,
  user_id: 'u',
  key_id: 'k',
  storage_connection_id: 's',
  consent: 'granted' as const,
});

function recall(tenantId: string, namespace: string, cue: string): Promise<RecallResponse> {
  const msg: MemoryRecallMessage = {
    scope: scopeOf(tenantId),
    request_id: randomUUID(),
    body: { contract_version: CONTRACT_VERSION, namespace, cue: { text: cue }, top_k: 50 },
  };
  return recallMemory(msg, deps);
}

const writeMessage = (tenantId: string, namespace: string, text: string): MemoryWriteMessage => ({
  scope: scopeOf(tenantId),
  request_id: randomUUID(),
  idempotency_key: randomUUID(),
  body: {
    contract_version: CONTRACT_VERSION,
    namespace,
    event: { occurred_at: '2026-02-01T00:00:00Z', content: { text } },
  },
});

async function postings(tenantId: string, namespace: string, index: 'v1' | 'v2') {
  const { rows } = await pool.query<{ term: string; occurred_at: Date; memory_id: string }>(
    `SELECT term, occurred_at, memory_id::text AS memory_id FROM memory_term
      WHERE scope_key = CASE WHEN $3 = 'v1' THEN memory_scope_key($1, $2) ELSE memory_scope_key_v2($1, $2) END
`,
    [tenantId, namespace, index],
  );
  return rows.map((r) => `${r.memory_id} ${r.term} ${r.occurred_at.toISOString()}`).sort();
}

/** What the write path posts for the namespace's records under the stemmed index, as postings() lists them. */
async function expectedV2(tenantId: string, namespace: string) {
  const { rows } = await pool.query<{ id: string; occurred_at: Date; text: string }>(
    `SELECT id::text AS id, occurred_at, text FROM memory_record WHERE tenant_id = $1 AND namespace = $2`,
    [tenantId, namespace],
  );
  return rows
    .flatMap((r) => tokenize(r.text).map((term) => `${r.id} ${term} ${r.occurred_at.toISOString()}`))
    .sort();
}

async function reindexRow(tenantId: string, namespace: string) {
  const { rows } = await pool.query(
    `SELECT status, records_total::int, records_done::int, cursor_event_id,
            started_at IS NOT NULL AS started, finished_at IS NOT NULL AS finished
       FROM memory_reindex WHERE tenant_id = $1 AND namespace = $2`,
    [tenantId, namespace],
  );
  return rows[0];
}

/** Run batches on `on` until no namespace has work left; the batches, in order. */
async function runAll(on: pg.Pool = pool, sizes = SMALL): Promise<ReindexBatch[]> {
  const batches: ReindexBatch[] = [];
  for (let batch = await runReindexBatch(on, sizes, tokenize); batch; ) {
    batches.push(batch);
    batch = await runReindexBatch(on, sizes, tokenize);
  }
  return batches;
}

/** A recall's answer as a caller compares two namespaces: ids differ, everything else must not. */
const ranking = (r: RecallResponse) => ({
  model_version: r.ranking.model_version,
  related: r.related.map(({ memory_id: _, ...rest }) => rest),
});

beforeAll(async () => {
  await cloneDatabase(database, templateDatabase(inject('runId'), 'memory'));
  initPrisma(databaseUrl(database), 4);
  pool = getPool();
});

afterAll(async () => {
  await closePrisma();
  await dropDatabase(database);
});

describe('re-index of a namespace written before recall matched on stems', () => {
  it('when its re-index is pending, then recall ranks it by the old index, unstemmed', async () => {
    const tenantId = `reindex-${randomUUID()}`;
    const records = corpus(30);
    await seedLegacy(tenantId, 'old', records);

    const answer = await recall(tenantId, 'old', 'dogs walking');

    expect(answer.ranking.model_version).toBe('deterministic-lexical-v1');
    const unstemmed = records.filter((r) => /\b(dogs|walking)\b/.test(r.text)).map((r) => r.eventId);
    expect(answer.related.map((r) => r.event_id).sort()).toEqual(unstemmed.sort());
    await runAll();
  });

  it('when memories are written while it is pending or indexing, alone or in a batch, then the old index finds them, and a namespace not re-indexed gets no old postings', async () => {
    const tenantId = `reindex-${randomUUID()}`;
    await seedLegacy(tenantId, 'old', corpus(30));
    await seed(tenantId, 'fresh', corpus(5), 'v2');

    const alone = await writeMemory(writeMessage(tenantId, 'old', 'zebra crossing while pending'), deps);
    await runReindexBatch(pool, SMALL, tokenize);
    expect(await reindexRow(tenantId, 'old')).toMatchObject({ status: 'indexing', records_done: 7 });
    const batch = await writeMemoryBatch(
      {
        version: 'v1',
        scope: scopeOf(tenantId),
        request_id: randomUUID(),
        namespace: 'old',
        items: ['zebra one', 'zebra two', 'zebra three'].map((text) => ({
          idempotency_key: randomUUID(),
          event: { occurred_at: '2026-02-02T00:00:00Z', content: { text } },
        })),
      },
      deps,
    );
    await writeMemory(writeMessage(tenantId, 'fresh', 'zebra elsewhere'), deps);

    const answer = await recall(tenantId, 'old', 'zebra');
    expect(answer).toMatchObject({
      ranking: { model_version: 'deterministic-lexical-v1' },
      retrieval_outcome: 'matched',
    });
    const written = [alone.memory_id, ...batch.map((b) => ('ok' in b ? b.ok.memory_id : null))];
    expect(answer.related.map((r) => r.memory_id).sort()).toEqual([...written].sort());
    // Each has both indexes' postings; the namespace with no re-index only the stemmed ones.
    const v1 = await postings(tenantId, 'old', 'v1');
    for (const id of written) expect(v1.filter((p) => p.startsWith(`${id} `)).length).toBeGreaterThan(0);
    expect((await postings(tenantId, 'fresh', 'v1')).length).toBe(0);
    expect((await recall(tenantId, 'fresh', 'zebra')).ranking.model_version).toBe('deterministic-lexical-v2');
    await runAll();
  });

  it('when the worker runs in steps, stopped and started again, then every record is posted once under the stemmed index, recall is a fresh namespace’s, and the old postings are gone', async () => {
    const tenantId = `reindex-${randomUUID()}`;
    const other = `reindex-other-${randomUUID()}`;
    const records = corpus(60);
    await seedLegacy(tenantId, 'old', records);
    await seed(tenantId, 'fresh', corpus(60), 'v2');
    // Another tenant, the same namespace name, never re-indexed.
    await seed(other, 'old', corpus(20, 7), 'v2');
    const othersBefore = await postings(other, 'old', 'v2');
    const v1Before = (await postings(tenantId, 'old', 'v1')).length;

    // Three batches, then a stop: the committed cursor holds, recall still ranks by the old index.
    for (let i = 0; i < 3; i++) await runReindexBatch(pool, SMALL, tokenize);
    expect(await reindexRow(tenantId, 'old')).toMatchObject({
      status: 'indexing',
      records_total: 60,
      records_done: 21,
      cursor_event_id: 'e0020',
      started: true,
      finished: false,
    });
    expect((await postings(tenantId, 'old', 'v2')).length).toBe(
      records.slice(0, 21).reduce((n, r) => n + tokenize(r.text).length, 0),
    );
    expect((await recall(tenantId, 'old', 'dogs walking')).ranking.model_version).toBe(
      'deterministic-lexical-v1',
    );

    // Started again: it goes on from the cursor to the end, then removes the old postings.
    const batches = await runAll();

    expect(batches.filter((b) => b.from === 'indexing').reduce((n, b) => n + b.records, 0)).toBe(60 - 21);
    expect(batches.filter((b) => b.from === 'cleaning').reduce((n, b) => n + b.postings, 0)).toBe(v1Before);
    expect(await reindexRow(tenantId, 'old')).toMatchObject({
      status: 'completed',
      records_total: 60,
      records_done: 60,
      finished: true,
    });
    expect(await postings(tenantId, 'old', 'v2')).toEqual(await expectedV2(tenantId, 'old'));
    expect(await postings(tenantId, 'old', 'v1')).toEqual([]);
    for (const cue of CUES) {
      const [reindexed, fresh] = await Promise.all([
        recall(tenantId, 'old', cue),
        recall(tenantId, 'fresh', cue),
      ]);
      expect(ranking(reindexed)).toEqual(ranking(fresh));
      expect(reindexed.ranking.model_version).toBe('deterministic-lexical-v2');
    }
    expect(await postings(other, 'old', 'v2')).toEqual(othersBefore);
    expect(await postings(other, 'old', 'v1')).toEqual([]);
  });

  it('when the old index is fully built but not yet cleaned, then recall already ranks by stems', async () => {
    const tenantId = `reindex-${randomUUID()}`;
    await seedLegacy(tenantId, 'old', corpus(10));

    // pending → indexing with 7, the last 3, then the step that finds none left.
    for (let i = 0; i < 3; i++) await runReindexBatch(pool, SMALL, tokenize);

    expect(await reindexRow(tenantId, 'old')).toMatchObject({ status: 'cleaning', finished: true });
    expect((await postings(tenantId, 'old', 'v1')).length).toBeGreaterThan(0);
    expect((await recall(tenantId, 'old', 'dogs walking')).ranking.model_version).toBe(
      'deterministic-lexical-v2',
    );
    // A write now posts the stemmed terms only.
    const written = await writeMemory(writeMessage(tenantId, 'old', 'zebra after indexing'), deps);
    expect(
      (await postings(tenantId, 'old', 'v1')).filter((p) => p.startsWith(`${written.memory_id} `)),
    ).toEqual([]);
    await runAll();
    expect(await postings(tenantId, 'old', 'v1')).toEqual([]);
  });

  it('when a write that saw the namespace indexing is still in flight as it moves to cleaning, then neither waits for the other, and the last cleaning batch waits for the write and removes its old postings', async () => {
    const tenantId = `reindex-${randomUUID()}`;
    await seedLegacy(tenantId, 'old', corpus(3));
    await runReindexBatch(pool, SMALL, tokenize);
    expect(await reindexRow(tenantId, 'old')).toMatchObject({ status: 'indexing', records_done: 3 });
    // A write in flight, as the write statement holds it: the row KEY SHARE locked, an old posting in.
    const write = await pool.connect();
    try {
      await write.query('BEGIN');
      const locked = await write.query(
        `SELECT 1 FROM memory_reindex WHERE tenant_id = $1 AND namespace = $2
            AND status IN ('pending', 'indexing') FOR KEY SHARE`,
        [tenantId, 'old'],
      );
      expect(locked.rowCount).toBe(1);
      await write.query(
        `INSERT INTO memory_term (scope_key, term, occurred_at, memory_id)
         VALUES (memory_scope_key($1, $2), 'late', now(), $3)`,
        [tenantId, 'old', randomUUID()],
      );

      // The batch that finds no record left moves on without waiting for the write.
      expect(await runReindexBatch(pool, SMALL, tokenize)).toMatchObject({
        from: 'indexing',
        status: 'cleaning',
      });
      // The cleaning batch reaches the end of the old postings it can see, then waits for the write.
      let finished = false;
      const last = runReindexBatch(pool, SMALL, tokenize).finally(() => {
        finished = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(finished).toBe(false);
      await write.query('COMMIT');

      expect(await last).toMatchObject({ from: 'cleaning', status: 'completed' });
      expect(await postings(tenantId, 'old', 'v1')).toEqual([]);
    } finally {
      await write.query('ROLLBACK').catch(() => undefined);
      write.release();
    }
  });

  it('when a batch holds the namespace, then a write to it does not wait and still posts both indexes', async () => {
    const tenantId = `reindex-${randomUUID()}`;
    await seedLegacy(tenantId, 'old', corpus(20));
    await runReindexBatch(pool, SMALL, tokenize);
    const batch = await pool.connect();
    try {
      await batch.query('BEGIN');
      await batch.query(
        'SELECT 1 FROM memory_reindex WHERE tenant_id = $1 AND namespace = $2 FOR NO KEY UPDATE',
        [tenantId, 'old'],
      );
      await batch.query(
        `UPDATE memory_reindex SET records_done = records_done + 7, updated_at = now()
          WHERE tenant_id = $1 AND namespace = $2`,
        [tenantId, 'old'],
      );

      const started = Date.now();
      const written = await writeMemory(writeMessage(tenantId, 'old', 'zebra during a batch'), deps);
      const waited = Date.now() - started;

      expect(written).toMatchObject({ state: 'retained' });
      // Far under the pool's 3 s lock_timeout, which a conflicting lock would have run into.
      expect(waited).toBeLessThan(2_000);
      expect((await postings(tenantId, 'old', 'v1')).some((p) => p.startsWith(`${written.memory_id} `))).toBe(
        true,
      );
      expect((await postings(tenantId, 'old', 'v2')).some((p) => p.startsWith(`${written.memory_id} `))).toBe(
        true,
      );
    } finally {
      await batch.query('ROLLBACK');
      batch.release();
    }
    await runAll();
  });

  it('when memories are forgotten while it is indexing, before, at and after the cursor, then none of their postings is left in either index', async () => {
    const tenantId = `reindex-${randomUUID()}`;
    const records = corpus(40);
    await seedLegacy(tenantId, 'old', records);
    await runReindexBatch(pool, SMALL, tokenize);
    const forget = (r: Seeded) =>
      forgetMemory({ scope: scopeOf(tenantId), request_id: randomUUID(), memory_id: r.id });

    // One behind the cursor, then each of the next batches' records raced against the batch itself.
    await forget(records[2] as Seeded);
    const raced = [records[8], records[16], records[23], records[31]] as Seeded[];
    for (const r of raced) await Promise.all([runReindexBatch(pool, SMALL, tokenize), forget(r)]);
    await runAll();

    const gone = new Set([records[2], ...raced].map((r) => r?.id));
    const left = [...(await postings(tenantId, 'old', 'v2')), ...(await postings(tenantId, 'old', 'v1'))];
    expect(left.filter((p) => gone.has(p.split(' ')[0]))).toEqual([]);
    expect(await postings(tenantId, 'old', 'v2')).toEqual(await expectedV2(tenantId, 'old'));
    expect(await reindexRow(tenantId, 'old')).toMatchObject({ status: 'completed' });
  });

  it('when the namespace is being deleted, then the worker leaves it to the deletion, which removes its re-index with it', async () => {
    const tenantId = `reindex-${randomUUID()}`;
    await seedLegacy(tenantId, 'doomed', corpus(12));
    await runReindexBatch(pool, SMALL, tokenize);
    await startDeletion(getSql(), { id: randomUUID(), tenantId, namespace: 'doomed', requestId: 'r' });

    expect(await runReindexBatch(pool, SMALL, tokenize)).toBeUndefined();
    while (await runDeletionBatch(pool, { records: 5, postings: 40 })) {}

    expect(await reindexRow(tenantId, 'doomed')).toBeUndefined();
    expect(await postings(tenantId, 'doomed', 'v1')).toEqual([]);
    expect(await postings(tenantId, 'doomed', 'v2')).toEqual([]);
  });

  it('when a namespace’s batch fails, then it rolls back alone and the next batch takes another namespace', async () => {
    const tenantId = `reindex-${randomUUID()}`;
    const poisoned = corpus(5);
    (poisoned[2] as Seeded).text = 'poison pill';
    await seedLegacy(tenantId, 'poisoned', poisoned);
    await seedLegacy(tenantId, 'healthy', corpus(5));
    const terms = (text: string) => {
      if (text === 'poison pill') throw new Error('cannot tokenize');
      return tokenize(text);
    };

    await expect(runReindexBatch(pool, SMALL, terms)).rejects.toThrow('cannot tokenize');
    expect(await reindexRow(tenantId, 'poisoned')).toMatchObject({ status: 'pending', records_done: 0 });
    expect(await runReindexBatch(pool, SMALL, terms)).toMatchObject({ namespace: 'healthy', records: 5 });
    expect((await postings(tenantId, 'poisoned', 'v2')).length).toBe(0);

    // Mended (here: the real tokenizer), it goes on from where it was.
    await runAll();
    expect(await reindexRow(tenantId, 'poisoned')).toMatchObject({ status: 'completed', records_done: 5 });
  });

  it('when two workers on two connections run at once, then no batch is run twice and each namespace is indexed once', async () => {
    const tenantId = `reindex-${randomUUID()}`;
    const namespaces = ['a', 'b', 'c'];
    for (const [i, namespace] of namespaces.entries()) await seedLegacy(tenantId, namespace, corpus(50, i));
    const second = createPgPool(databaseUrl(database), { poolSize: 2, settings: MEMORY_SESSION_SETTINGS });

    try {
      const [one, two] = await Promise.all([runAll(pool), runAll(second)]);

      expect(one.length).toBeGreaterThan(0);
      expect(two.length).toBeGreaterThan(0);
      for (const namespace of namespaces) {
        const mine = [...one, ...two].filter((b) => b.namespace === namespace && b.tenantId === tenantId);
        // A batch run twice would count its records twice.
        expect(mine.reduce((n, b) => n + b.records, 0)).toBe(50);
        expect(await reindexRow(tenantId, namespace)).toMatchObject({
          status: 'completed',
          records_done: 50,
        });
        expect(await postings(tenantId, namespace, 'v2')).toEqual(await expectedV2(tenantId, namespace));
        expect(await postings(tenantId, namespace, 'v1')).toEqual([]);
      }
    } finally {
      await second.end();
    }
  });

  it('when the worker is started as the service starts it, then it finishes every namespace and reports its progress', async () => {
    const tenantId = `reindex-${randomUUID()}`;
    await seedLegacy(tenantId, 'one', corpus(25));
    await seedLegacy(tenantId, 'two', corpus(15, 3));
    const before = await reindexProgress(pool);
    expect(before).toMatchObject({ namespaces_pending: 2, namespaces_indexing: 0, namespaces_cleaning: 0 });
    const logger = { info: () => undefined, warn: () => undefined } as never;

    const worker = startReindexWorker({ pool: getPool, sizes: SMALL, pollMs: 50, logger });
    await expect
      .poll(() => worker.progress()?.namespaces_completed, { timeout: 20_000 })
      .toBe(before?.namespaces_total);
    await worker.stop();

    // Every namespace is done: what each counted at its start, plus what was written meanwhile.
    const total = before?.records_total;
    expect(worker.progress()).toEqual({
      namespaces_pending: 0,
      namespaces_indexing: 0,
      namespaces_cleaning: 0,
      namespaces_completed: before?.namespaces_total,
      namespaces_total: before?.namespaces_total,
      records_done: total,
      records_total: total,
    });
    expect(await reindexRow(tenantId, 'one')).toMatchObject({ status: 'completed', records_done: 25 });
    expect(await reindexRow(tenantId, 'two')).toMatchObject({ status: 'completed', records_done: 15 });
  });
});
