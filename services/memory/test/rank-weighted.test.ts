import { randomUUID } from 'node:crypto';
import { createPgPool, poolRunner } from '@tm/kit';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RankOptions, rankWeighted, type WeightedRow } from '../src/data-access/rank-weighted.js';
import { MEMORY_SESSION_SETTINGS } from '../src/data-access/session-settings.js';

/**
 * rankWeighted against the definition, scored here record by record: each cue term weighs its IDF in
 * the namespace, a record scores the weights of the terms it holds, ties go to more function words
 * held, then the newer event, then the event id. Checked for each way memory_rank ranks (every record
 * scored; classes newest first; the full-match walk; MaxScore's walks and probes), on a seeded random corpus where terms are
 * common (c*), middling (m*) or rare (r*), d* split the records in three, and f* are function words.
 */
const tenantId = `rankw-${randomUUID()}`;
const namespace = 'weighted';
const RECORDS = 3_000;
const TERMS: Array<[string, number]> = [
  ['c0', 0.9],
  ['c1', 0.8],
  ['c2', 0.7],
  ['m0', 0.1],
  ['m1', 0.1],
  ['m2', 0.05],
  ['r0', 0.01],
  ['r1', 0.01],
  ['r2', 0.003],
];
const DISJOINT = ['d0', 'd1', 'd2'];
const FUNCTION_WORDS: Array<[string, number]> = [
  ['f0', 0.95],
  ['f1', 0.5],
  ['f2', 0.02],
];
const CONTENT = [...TERMS.map(([t]) => t), ...DISJOINT, 'absent'];
const TIES = [...FUNCTION_WORDS.map(([t]) => t), 'nowhere'];

interface Stored {
  id: string;
  event_id: string;
  occurred_at: Date;
  superseded_at: Date | null;
  terms: Set<string>;
}

let pool: pg.Pool;
let stored: Stored[];

/** A small seeded generator (mulberry32), so the corpus is the same on every run. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

beforeAll(async () => {
  pool = createPgPool(inject('stack').memoryDbUrl, { poolSize: 2, settings: MEMORY_SESSION_SETTINGS });
  const next = random(20261129);
  stored = Array.from({ length: RECORDS }, (_, i) => {
    const terms = new Set<string>([`d${i % 3}`]);
    for (const [term, share] of [...TERMS, ...FUNCTION_WORDS]) if (next() < share) terms.add(term);
    // Event times repeat every 700 records, so ranks tie on time and break on event id.
    const occurred_at = new Date(Date.UTC(2026, 0, 1) + (i % 700) * 60_000);
    return {
      id: randomUUID(),
      event_id: `e${String(i).padStart(5, '0')}`,
      occurred_at,
      // Every tenth record was superseded half an hour after it happened.
      superseded_at: i % 10 === 7 ? new Date(occurred_at.getTime() + 30 * 60_000) : null,
      terms,
    };
  });
  await pool.query(
    `INSERT INTO memory_record (id, tenant_id, user_id, namespace, event_id, occurred_at, text, request_id, superseded_at)
     SELECT id, $1, 'u', $2, event_id, occurred_at, 'text', 'r', superseded_at
       FROM unnest($3::uuid[], $4::text[], $5::timestamptz[], $6::timestamptz[])
         AS r(id, event_id, occurred_at, superseded_at)`,
    [
      tenantId,
      namespace,
      stored.map((r) => r.id),
      stored.map((r) => r.event_id),
      stored.map((r) => r.occurred_at),
      stored.map((r) => r.superseded_at),
    ],
  );
  const postings = stored.flatMap((r) => [...r.terms].map((term) => ({ r, term })));
  await pool.query(
    `INSERT INTO memory_term (scope_key, term, occurred_at, memory_id)
     SELECT memory_scope_key_v2($1, $2), term, occurred_at, memory_id
       FROM unnest($3::text[], $4::timestamptz[], $5::uuid[]) AS p(term, occurred_at, memory_id)`,
    [
      tenantId,
      namespace,
      postings.map((p) => p.term),
      postings.map((p) => p.r.occurred_at),
      postings.map((p) => p.r.id),
    ],
  );
  // Two shards, as two connections' writes would leave them.
  await pool.query(
    `INSERT INTO memory_scope_count (scope_key, shard, records)
     VALUES (memory_scope_key_v2($1, $2), 0, $3), (memory_scope_key_v2($1, $2), 5, $4)`,
    [tenantId, namespace, 1_000, RECORDS - 1_000],
  );
});

afterAll(async () => {
  await pool.query('DELETE FROM memory_term WHERE scope_key = memory_scope_key_v2($1, $2)', [
    tenantId,
    namespace,
  ]);
  await pool.query('DELETE FROM memory_scope_count WHERE scope_key = memory_scope_key_v2($1, $2)', [
    tenantId,
    namespace,
  ]);
  await pool.query('DELETE FROM memory_record WHERE tenant_id = $1', [tenantId]);
  await pool.end();
});

const lengthOf = (term: string) => stored.filter((r) => r.terms.has(term)).length;

/** BM25's IDF in millionths, at least 1, as memory_term_weight computes it from a list's length. */
const weightFor = (df: number) =>
  Math.max(1, Math.round(1e6 * Math.log(1 + (RECORDS - df + 0.5) / (df + 0.5))));

/** The definition, record by record, with the weights the ranking reports. */
function reference(cue: string[], ties: string[], weights: number[], asOf: Date | null, limit: number) {
  return stored
    .filter((r) => !asOf || r.occurred_at <= asOf)
    .filter((r) => !r.superseded_at || (asOf !== null && r.superseded_at > asOf))
    .filter((r) => cue.some((t) => r.terms.has(t)))
    .map((r) => ({
      r,
      score: cue.reduce((sum, t, i) => sum + (r.terms.has(t) ? (weights[i] ?? 0) : 0), 0),
      tie: ties.filter((t) => r.terms.has(t)).length,
    }))
    .sort(
      (a, b) =>
        b.score - a.score ||
        b.tie - a.tie ||
        b.r.occurred_at.getTime() - a.r.occurred_at.getTime() ||
        (a.r.event_id < b.r.event_id ? -1 : 1),
    )
    .slice(0, limit)
    .map((x) => `${x.r.event_id}:${x.score}:${x.tie}`);
}

const listed = (rows: WeightedRow[]) => rows.map((r) => `${r.event_id}:${r.score}:${r.tie}`);

const WAYS: Array<[string, RankOptions]> = [
  ['scoring every record', { scoreAllBelow: 1_000_000 }],
  ['classes, two lists merged, newest first', { scoreAllBelow: 0, classWalk: { firstChunk: 3 } }],
  ['classes, read in long chunks', { scoreAllBelow: 0, classWalk: { firstChunk: 500 } }],
  ['classes, one list at a time', { scoreAllBelow: 0, classWalk: { firstChunk: 3, mergePairs: false } }],
  ['the full-match walk, then MaxScore', { scoreAllBelow: 0, classesUpTo: 0 }],
  [
    'MaxScore after a full-match walk of a few postings',
    { scoreAllBelow: 0, classesUpTo: 0, fullMatchWalk: 3 },
  ],
];

async function check(cue: string[], ties: string[], asOf: Date | null, limit: number, way: RankOptions) {
  const ranking = await rankWeighted(
    poolRunner(pool),
    { tenantId, namespace, terms: cue, tieTerms: ties, asOf, limit },
    way,
  );
  if (ranking.legacy) throw new Error('A namespace with no re-index row ranks by its stemmed index');
  const { weights } = ranking;
  weights.forEach((w, i) => {
    const df = lengthOf(cue[i] as string);
    // Lists of fewer than 1,000 postings are counted: numeric logarithms in PostgreSQL and doubles here
    // round a millionth apart at most. Longer ones are estimated from their event times: within a fifth.
    if (df < 1_000) expect(Math.abs(w - weightFor(df))).toBeLessThanOrEqual(1);
    else expect(w).toBeGreaterThan(weightFor(Math.min(RECORDS, df * 1.2)));
    if (df >= 1_000) expect(w).toBeLessThan(weightFor(df * 0.8));
  });
  for (const row of ranking.rows) {
    expect(row.held).toEqual(cue.map((t) => stored.find((r) => r.id === row.id)?.terms.has(t)));
  }
  expect(
    listed(ranking.rows),
    `${cue.join(' ')} / ${ties.join(' ')} as_of ${asOf?.toISOString()} top ${limit}`,
  ).toEqual(reference(cue, ties, weights, asOf, limit));
}

describe('rankWeighted on a namespace with thousands of postings per term', () => {
  const cues: Array<[string[], string[]]> = [
    [['c0', 'c1', 'c2'], []], // every term common: full matches found by the walk
    [['c0', 'c1', 'c2'], ['f0']], // and the function word most of them hold
    [['c0', 'c1', 'c2'], ['f2']], // a rare function word: the full matches holding it are few
    [['c0', 'c1', 'r0'], ['f1']], // few full matches: MaxScore
    [
      ['c0', 'm0', 'm1', 'r1'],
      ['f0', 'f1'],
    ],
    [['m1', 'r0'], []],
    [['r0'], ['f2']],
    [['c0'], []], // one long list: its newest k, function words breaking no tie
    [
      ['c0', 'c1', 'c2', 'm0', 'm1', 'm2', 'r0', 'r1', 'r2'],
      ['f0', 'f1', 'f2'],
    ],
    [['d0', 'd1', 'c0', 'c1', 'c2'], ['f1']], // no full match: the best hold 4 of 5
    [['d0', 'd1', 'd2', 'c0'], []], // no record holds more than 2
    [['absent', 'r2'], ['nowhere']], // a term nobody holds still weighs in the cue
    [['absent'], []],
  ];
  const asOfs = [null, new Date('2026-01-01T05:00:00Z'), new Date('2026-01-01T11:30:00Z')];

  it.each(WAYS)(
    'when cues, cut-offs and top_k vary, then ranking by %s is the definition, exactly',
    async (_, way) => {
      expect(stored.filter((r) => r.terms.has('c2')).length).toBeGreaterThan(2_000);
      for (const [cue, ties] of cues) {
        for (const asOf of asOfs) {
          for (const limit of [1, 7, 50]) await check(cue, ties, asOf, limit, way);
        }
      }
    },
  );

  it.each(WAYS)(
    'when any cue and function words of these terms are recalled by %s, then the ranking is the definition',
    async (_, way) => {
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.constantFrom(...CONTENT), { minLength: 1, maxLength: 10 }),
          fc.uniqueArray(fc.constantFrom(...TIES), { maxLength: 3 }),
          fc.constantFrom(...asOfs),
          fc.integer({ min: 1, max: 60 }),
          (cue, ties, asOf, limit) => check(cue, ties, asOf, limit, way),
        ),
        { numRuns: 40, seed: 20261129 },
      );
    },
  );
});
