// The re-index after the weighted recall upgrade, measured: a namespace seeded as an upgraded database
// holds it (records, their unstemmed postings, its record count, a pending memory_reindex row), then the
// re-index worker's batches run on it back to back, as the worker runs them, until it is completed.
//
//   node --import tsx tests/load/reindex-bench.ts [--records 100000] [--batch 500] [--keep]
//
// Works in a throwaway database of its own (tm_bench_reindex, memory's migrations applied) on the
// server the bench uses (BENCH_PG_URL, else MEMORY_DATABASE_URL, else PG* / local defaults), dropped
// at the end unless --keep. Results: docs/benchmarks.md, "Weighted recall: what comes back".
import { parseArgs } from 'node:util';
import pg from 'pg';
import { timeOrderedId } from '../../libs/kit/src/ids.js';
import { runReindexBatch } from '../../services/memory/src/data-access/namespace-reindex.js';
import { tokenize } from '../../services/memory/src/domain/tokenize.js';
import { tokenizeV1 } from '../../services/memory/src/domain/tokenize-v1.js';
import { createMemoryDatabase, dropDatabase } from './baseline-database.js';
import { TextCorpus } from './text-corpus.js';

const DATABASE = 'tm_bench_reindex';
const TENANT = 'bench-reindex';
const NAMESPACE = 'upgraded';
/** Records per seeding statement pair, as seed-direct.ts seeds. */
const SEED_BATCH = 5_000;

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '100000' },
    batch: { type: 'string', default: '500' },
    keep: { type: 'boolean', default: false },
  },
});
const records = Number(values.records);
const batchSize = Number(values.batch);
const sizes = { records: batchSize, postings: batchSize * 25 };

const url = await createMemoryDatabase(DATABASE);
const pool = new pg.Pool({ connectionString: url, max: 2 });
try {
  const seeded = await seed(pool, records);
  console.log(
    `seeded ${records} records, ${seeded.postings} unstemmed postings in ${seeded.seconds.toFixed(1)} s`,
  );
  await pool.query('VACUUM ANALYZE memory_record');
  await pool.query('VACUUM ANALYZE memory_term');

  const phases = { indexing: [] as number[], cleaning: [] as number[] };
  let indexed = 0;
  let removed = 0;
  const started = performance.now();
  let indexedAt = started;
  for (;;) {
    const at = performance.now();
    const batch = await runReindexBatch(pool, sizes, tokenize);
    if (!batch) break;
    const ms = performance.now() - at;
    if (batch.from === 'cleaning') phases.cleaning.push(ms);
    else phases.indexing.push(ms);
    indexed += batch.records;
    removed += batch.postings;
    if (batch.from !== 'cleaning' && batch.status === 'cleaning') indexedAt = performance.now();
  }
  const ended = performance.now();
  const {
    rows: [after],
  } = await pool.query<{ status: string; v2: string; v1: string }>(
    `SELECT (SELECT status FROM memory_reindex WHERE tenant_id = $1 AND namespace = $2) AS status,
            (SELECT count(*) FROM memory_term WHERE scope_key = memory_scope_key_v2($1, $2)) AS v2,
            (SELECT count(*) FROM memory_term WHERE scope_key = memory_scope_key($1, $2)) AS v1`,
    [TENANT, NAMESPACE],
  );
  const indexSeconds = (indexedAt - started) / 1000;
  const cleanSeconds = (ended - indexedAt) / 1000;
  console.log(
    JSON.stringify(
      {
        records,
        batch_size: batchSize,
        status: after?.status,
        indexing: {
          records: indexed,
          batches: phases.indexing.length,
          seconds: round(indexSeconds),
          records_per_second: Math.round(indexed / indexSeconds),
          batch_ms: quantiles(phases.indexing),
        },
        cleaning: {
          postings_removed: removed,
          batches: phases.cleaning.length,
          seconds: round(cleanSeconds),
          postings_per_second: Math.round(removed / cleanSeconds),
          batch_ms: quantiles(phases.cleaning),
        },
        total_seconds: round((ended - started) / 1000),
        stemmed_postings: Number(after?.v2),
        unstemmed_postings_left: Number(after?.v1),
      },
      null,
      2,
    ),
  );
} finally {
  await pool.end();
  if (!values.keep) await dropDatabase(DATABASE);
}

/** The namespace as the weighted_recall migration leaves an upgraded one. */
async function seed(pool: pg.Pool, count: number) {
  const started = performance.now();
  const corpus = new TextCorpus();
  let postings = 0;
  for (let from = 0; from < count; from += SEED_BATCH) {
    const ids: string[] = [];
    const eventIds: string[] = [];
    const times: string[] = [];
    const texts: string[] = [];
    const terms: { term: string[]; at: string[]; id: string[] } = { term: [], at: [], id: [] };
    for (let i = from; i < Math.min(from + SEED_BATCH, count); i++) {
      const id = timeOrderedId();
      const occurredAt = corpus.occurredAt();
      const text = corpus.text();
      ids.push(id);
      eventIds.push(`e-${i}`);
      times.push(occurredAt);
      texts.push(text);
      for (const term of tokenizeV1(text)) {
        terms.term.push(term);
        terms.at.push(occurredAt);
        terms.id.push(id);
      }
    }
    postings += terms.term.length;
    await pool.query(
      `INSERT INTO memory_record (id, tenant_id, user_id, namespace, event_id, occurred_at, text, request_id)
       SELECT id, $1, 'bench', $2, event_id, occurred_at, text, 'seed'
         FROM unnest($3::uuid[], $4::text[], $5::timestamptz[], $6::text[]) AS r(id, event_id, occurred_at, text)`,
      [TENANT, NAMESPACE, ids, eventIds, times, texts],
    );
    await pool.query(
      `INSERT INTO memory_term (scope_key, term, occurred_at, memory_id)
       SELECT memory_scope_key($1, $2), term, occurred_at, memory_id
         FROM unnest($3::text[], $4::timestamptz[], $5::uuid[]) AS p(term, occurred_at, memory_id)
        ORDER BY 1, 2, 3, 4`,
      [TENANT, NAMESPACE, terms.term, terms.at, terms.id],
    );
  }
  await pool.query(
    `INSERT INTO memory_scope_count (scope_key, shard, records) VALUES (memory_scope_key_v2($1, $2), 0, $3)`,
    [TENANT, NAMESPACE, count],
  );
  await pool.query(`INSERT INTO memory_reindex (tenant_id, namespace, records_total) VALUES ($1, $2, $3)`, [
    TENANT,
    NAMESPACE,
    count,
  ]);
  return { postings, seconds: (performance.now() - started) / 1000 };
}

function quantiles(ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  return { p50: at(0.5), p95: at(0.95), max: at(1) };
}

function round(n: number) {
  return Math.round(n * 10) / 10;
}
