import { randomUUID } from 'node:crypto';
import { createPgPool, poolRunner, type SqlRunner } from '@tm/kit';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MAX_LEVEL_TERMS, walkWidth } from '../src/data-access/rank-by-levels.js';
import { type RankedRow, rankByOverlap } from '../src/data-access/rank-by-overlap.js';
import { MEMORY_SESSION_SETTINGS } from '../src/data-access/session-settings.js';

/**
 * rankByOverlap against plain counting done here in JavaScript, on a namespace large enough for its
 * shortcuts to run, once for each way it ranks: by levels (cues of up to 8 terms: each level walks the
 * rarest lists newest first and probes the rest, a level falling short of k walked whole) and by the
 * counting statement (its full-match walk over 5,000+ postings, the walk's 2,000-posting window with
 * event-time ties at its edge, the fall-back to counting), with as_of and superseded records. The d*
 * terms split the records in three, so no record holds two of them: cues of several common terms
 * that no record holds in full, whose best records hold only some.
 */
const tenantId = `rank-${randomUUID()}`;
const namespace = 'ranked';
const RECORDS = 3_000;
// Term and the share of records that hold it: c* common, m* middling, r* rare.
const TERMS: Array<[string, number]> = [
  ['c0', 0.9],
  ['c1', 0.8],
  ['c2', 0.7],
  ['m0', 0.1],
  ['m1', 0.1],
  ['r0', 0.01],
  ['r1', 0.01],
];
/** Held by every third record, from the first, second and third: never two in one record. */
const DISJOINT = ['d0', 'd1', 'd2'];

interface Stored {
  id: string;
  event_id: string;
  occurred_at: Date;
  superseded_at: Date | null;
  terms: string[];
}

let pool: pg.Pool;
let stored: Stored[];

beforeAll(async () => {
  // The service's own session settings, so the plans ranked here are the ones it runs.
  pool = createPgPool(inject('stack').memoryDbUrl, { poolSize: 2, settings: MEMORY_SESSION_SETTINGS });
  // Event times repeat every 700 records, so ranks tie on time and break on event id.
  await pool.query(
    `INSERT INTO memory_record (id, tenant_id, user_id, namespace, event_id, occurred_at, text, request_id)
     SELECT gen_random_uuid(), $1, 'u', $2, 'e' || lpad(i::text, 5, '0'),
            timestamptz '2026-01-01T00:00:00Z' + (i % 700) * interval '1 minute', 'text', 'r'
       FROM generate_series(1, $3::int) AS i`,
    [tenantId, namespace, RECORDS],
  );
  await pool.query(
    `INSERT INTO memory_term (scope_key, term, occurred_at, memory_id)
     SELECT memory_scope_key(r.tenant_id, r.namespace), v.term, r.occurred_at, r.id
       FROM memory_record r CROSS JOIN unnest($3::text[], $4::float8[]) AS v(term, share)
      WHERE r.tenant_id = $1 AND r.namespace = $2 AND random() < v.share`,
    [tenantId, namespace, TERMS.map((t) => t[0]), TERMS.map((t) => t[1])],
  );
  await pool.query(
    `INSERT INTO memory_term (scope_key, term, occurred_at, memory_id)
     SELECT memory_scope_key(tenant_id, namespace), 'd' || (substr(event_id, 2)::int % 3), occurred_at, id
       FROM memory_record WHERE tenant_id = $1 AND namespace = $2`,
    [tenantId, namespace],
  );
  // Every tenth record was superseded half an hour after it happened.
  await pool.query(
    `UPDATE memory_record SET superseded_at = occurred_at + interval '30 minutes'
      WHERE tenant_id = $1 AND namespace = $2 AND event_id LIKE '%7'`,
    [tenantId, namespace],
  );
  stored = (
    await pool.query<Stored>(
      `SELECT r.id::text AS id, r.event_id, r.occurred_at, r.superseded_at,
              coalesce(array_agg(t.term) FILTER (WHERE t.term IS NOT NULL), '{}') AS terms
         FROM memory_record r
         LEFT JOIN memory_term t ON t.scope_key = memory_scope_key(r.tenant_id, r.namespace) AND t.memory_id = r.id
        WHERE r.tenant_id = $1 AND r.namespace = $2
        GROUP BY r.id`,
      [tenantId, namespace],
    )
  ).rows;
});

afterAll(async () => {
  await pool.query('DELETE FROM memory_term WHERE scope_key = memory_scope_key($1, $2)', [
    tenantId,
    namespace,
  ]);
  await pool.query('DELETE FROM memory_record WHERE tenant_id = $1', [tenantId]);
  await pool.end();
});

/** The definition: count shared terms per visible record, order by count, newer event, event id. */
function reference(cue: string[], asOf: Date | null, limit: number) {
  return stored
    .filter((r) => !asOf || r.occurred_at <= asOf)
    .filter((r) => !r.superseded_at || (asOf !== null && r.superseded_at > asOf))
    .map((r) => ({ r, matched: cue.filter((t) => r.terms.includes(t)).length }))
    .filter((x) => x.matched > 0)
    .sort(
      (a, b) =>
        b.matched - a.matched ||
        b.r.occurred_at.getTime() - a.r.occurred_at.getTime() ||
        (a.r.event_id < b.r.event_id ? -1 : 1),
    )
    .slice(0, limit)
    .map((x) => `${x.r.event_id}:${x.matched}`);
}

const ranked = (rows: RankedRow[]) => rows.map((r) => `${r.event_id}:${r.matched}`);

describe('rankByOverlap on a namespace with thousands of postings per term', () => {
  const cues = [
    ['c0', 'c1', 'c2'], // every term common: full matches found by the walk, past its window
    ['c0', 'c1', 'c2', 'm0'], // walk from a middling term
    ['c0', 'c1', 'r0'], // too few full matches: falls back to counting
    ['c0', 'm0', 'm1', 'r1'],
    ['m1', 'r0'], // small lists: counted directly
    ['r0'],
    ['c0'], // one long list: its newest k
    ['c0', 'c1', 'c2', 'm0', 'r0'],
    ['c0', 'c1', 'c2', 'm0', 'm1', 'r0'],
    ['c0', 'c1', 'c2', 'm0', 'm1', 'r0', 'r1'],
    ['d0', 'd1', 'c0', 'c1', 'c2'], // common terms, no full match: the best hold 4 of 5
    ['d0', 'd1', 'd2', 'c0'], // no record holds more than 2
    ['d0', 'd1', 'd2', 'c2', 'm0', 'm1', 'r0'],
    ['d0', 'd1', 'd2', 'c0', 'c1', 'c2', 'm0', 'r0'], // as long as rank-by-levels takes
    ['d0', 'd1', 'd2', 'c0', 'c1', 'c2', 'm0', 'm1', 'r0'], // longer: the counting statement
  ];
  const asOfs = [null, new Date('2026-01-01T05:00:00Z'), new Date('2026-01-01T11:30:00Z')];

  it.each([
    ['by levels where the cue is short', MAX_LEVEL_TERMS],
    ['by the counting statement', 0],
  ])(
    'when cues, cut-offs and top_k vary, then ranking %s is exactly that of plain counting',
    async (_, levelsUpTo) => {
      expect(stored).toHaveLength(RECORDS);
      expect(stored.filter((r) => r.terms.includes('c2')).length).toBeGreaterThan(2_000);
      for (const cue of cues) {
        for (const asOf of asOfs) {
          for (const limit of [1, 7, 50]) {
            const rows = await rankByOverlap(
              poolRunner(pool),
              { tenantId, namespace, cueTerms: cue, asOf, limit },
              { levelsUpTo },
            );
            expect(ranked(rows), `${cue.join(' ')} as_of ${asOf?.toISOString()} top ${limit}`).toEqual(
              reference(cue, asOf, limit),
            );
          }
        }
      }
    },
  );

  it('when any short cue of these terms is recalled by levels, then the ranking is that of plain counting', async () => {
    const terms = [...TERMS.map(([term]) => term), ...DISJOINT];
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.constantFrom(...terms), { minLength: 1, maxLength: MAX_LEVEL_TERMS }),
        fc.constantFrom(...asOfs),
        fc.integer({ min: 1, max: 60 }),
        async (cue, asOf, limit) => {
          const rows = await rankByOverlap(poolRunner(pool), {
            tenantId,
            namespace,
            cueTerms: cue,
            asOf,
            limit,
          });
          expect(ranked(rows)).toEqual(reference(cue, asOf, limit));
        },
      ),
      { numRuns: 100, seed: 20261127 },
    );
  });

  it('when the next list is much longer than the probes it would save, then a level walks one list fewer', () => {
    // Full match (m = 3): walking the rarest list costs about one probe (4 postings' worth) a record.
    expect(walkWidth([100, 50_000, 60_000], 3)).toBe(1);
    expect(walkWidth([20_000, 25_000, 30_000], 3)).toBe(2);
    // m = 2 of 3: two lists at least; walking the third too leaves nothing to probe.
    expect(walkWidth([100, 200, 60_000], 2)).toBe(2);
    expect(walkWidth([10_000, 20_000, 30_000], 2)).toBe(3);
    // One matched term: every list.
    expect(walkWidth([1, 2, 3, 4], 1)).toBe(4);
  });

  it.each([
    ['short lists', ['m1', 'r0']],
    ['long lists', ['c0', 'c1', 'm0']],
  ])(
    'when the namespace is being deleted, then a recall of %s ranks nothing and its usage is still recorded',
    async (_, cue) => {
      expect(reference(cue, null, 5)).toHaveLength(5);
      await inRolledBackTransaction(async (client, run) => {
        await client.query(
          `INSERT INTO namespace_deletion (id, tenant_id, namespace, request_id) VALUES ($1, $2, $3, 'r')`,
          [randomUUID(), tenantId, namespace],
        );
        const id = randomUUID();
        const rows = await rankByOverlap(
          run,
          { tenantId, namespace, cueTerms: cue, asOf: null, limit: 5 },
          { recordWith: { id, subject: 'test.usage', payload: { usage_id: id } } },
        );
        expect(rows).toEqual([]);
        const { rows: outbox } = await client.query(
          'SELECT subject FROM outbox_message WHERE id = $1::uuid',
          [id],
        );
        expect(outbox).toEqual([{ subject: 'test.usage' }]);
      });
    },
  );

  it.each([
    ['short lists, counted in one statement', ['m1', 'r0']],
    ['long lists, ranked by levels', ['c0', 'c1']],
    ['long lists, ranked by the counting statement', ['d0', 'd1', 'd2', 'c0', 'c1', 'c2', 'm0', 'm1', 'r0']],
  ])('when a recall of %s ranks, then its usage message is in the outbox once', async (_, cue) => {
    await inRolledBackTransaction(async (client, run) => {
      const id = randomUUID();
      const rows = await rankByOverlap(
        run,
        { tenantId, namespace, cueTerms: cue, asOf: null, limit: 5 },
        { recordWith: { id, subject: 'test.usage', payload: { usage_id: id } } },
      );
      expect(ranked(rows)).toEqual(reference(cue, null, 5));
      const { rows: outbox } = await client.query(
        'SELECT subject, payload FROM outbox_message WHERE id = $1::uuid',
        [id],
      );
      expect(outbox).toEqual([{ subject: 'test.usage', payload: { usage_id: id } }]);
    });
  });
});

/**
 * Work in a transaction nobody else sees and that is rolled back, so the running stack's outbox
 * relay cannot take a usage row first and nothing is left behind.
 */
async function inRolledBackTransaction(work: (client: pg.PoolClient, run: SqlRunner) => Promise<void>) {
  const client = await pool.connect();
  const run: SqlRunner = async <T>(sql: string | { text: string }, params: unknown[]) =>
    (await client.query(typeof sql === 'string' ? sql : sql.text, params)).rows as T[];
  try {
    await client.query('BEGIN');
    await work(client, run);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}
