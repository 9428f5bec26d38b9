import { randomUUID } from 'node:crypto';
import { AppError, type MemoryDeleteMessage } from '@tm/contracts';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closePrisma, getPrisma, initPrisma } from '../src/data-access/prisma-client.js';
import { type DeletionLimits, deleteNamespace } from '../src/domain/delete-namespace.js';
import { tokenize } from '../src/domain/tokenize.js';

/**
 * Deleting a namespace in steps, with steps small enough that a few dozen records take several: each
 * call stops after its time budget with a retryable answer, keeps what it removed, and the call that
 * finishes reports the whole namespace. The rows are written here as the write path writes them
 * (postings are the tokenized text at the record's event time).
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
       SELECT memory_scope_key($1, $2), term, $3, $4 FROM unnest($5::text[]) AS term`,
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
            (SELECT count(*)::int FROM memory_term WHERE scope_key = memory_scope_key($1, $2)) AS postings,
            (SELECT count(*)::int FROM idempotency_entry WHERE tenant_id = $1 AND namespace = $2) AS entries,
            (SELECT count(*)::int FROM supersession_relation WHERE tenant_id = $1 AND namespace = $2) AS relations,
            (SELECT count(*)::int FROM namespace_deletion WHERE tenant_id = $1 AND namespace = $2) AS progress`,
    [owner, namespace],
  );
  return rows[0];
}

const message = (namespace: string): MemoryDeleteMessage => ({
  scope: { tenant_id: tenantId, user_id: 'u', key_id: 'k', storage_connection_id: 's', consent: 'granted' },
  request_id: `req-${randomUUID()}`,
  namespace,
});

beforeAll(() => {
  const url = inject('stack').memoryDbUrl;
  pool = new pg.Pool({ connectionString: url, max: 2 });
  initPrisma(url, 2);
});

afterAll(async () => {
  await closePrisma();
  await pool.end();
});

describe('deleteNamespace in steps', () => {
  it('when a namespace needs more steps than one call may take, then each call answers a retryable 409 and the last one reports everything', async () => {
    await seed('big');
    await seed('neighbour');
    // One step per call: 10 records, then 25 idempotency entries, a step.
    const oneStepACall: DeletionLimits = { budgetMs: 0, sizes: { records: 10, entries: 25 } };

    const refusals: AppError[] = [];
    let receipt: Awaited<ReturnType<typeof deleteNamespace>> | undefined;
    while (!receipt && refusals.length < 50) {
      try {
        receipt = await deleteNamespace(message('big'), getPrisma(), oneStepACall);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        refusals.push(err);
        const midway = await left('big');
        expect(midway?.progress).toBe(1);
        // Records and their postings go together: the postings left are exactly the records' left.
        const texts = await pool.query<{ text: string }>(
          'SELECT text FROM memory_record WHERE tenant_id = $1 AND namespace = $2',
          [tenantId, 'big'],
        );
        expect(midway?.postings).toBe(texts.rows.reduce((n, r) => n + tokenize(r.text).length, 0));
      }
    }

    // 45 records: 4 full steps, a fifth of 5 that also takes 25 entries, 25 more, then the last 10
    // entries with the relations: 7 steps, the first 6 answered "in progress".
    expect(refusals).toHaveLength(6);
    for (const refusal of refusals) {
      expect(refusal).toMatchObject({ code: 'idempotency_in_flight', retryable: true, retryAfter: 1 });
    }
    expect(receipt).toMatchObject({
      state: 'deleted',
      deleted: RECORDS,
      removed: { supersession_relations: RELATIONS, idempotency_entries: ENTRIES },
    });
    expect(await left('big')).toEqual({ records: 0, postings: 0, entries: 0, relations: 0, progress: 0 });
    expect(await left('neighbour')).toMatchObject({
      records: RECORDS,
      entries: ENTRIES,
      relations: RELATIONS,
    });
  });

  it('when a namespace fits in one step, then one call removes it whole and keeps no progress', async () => {
    await seed('small');

    const receipt = await deleteNamespace(message('small'), getPrisma(), {
      budgetMs: 0,
      sizes: { records: RECORDS + 1, entries: ENTRIES + 1 },
    });

    expect(receipt).toMatchObject({
      state: 'deleted',
      deleted: RECORDS,
      removed: { supersession_relations: RELATIONS, idempotency_entries: ENTRIES },
    });
    expect(await left('small')).toEqual({ records: 0, postings: 0, entries: 0, relations: 0, progress: 0 });
  });

  it('when steps run within one call, then the call answers once with the whole namespace', async () => {
    await seed('budgeted');

    const receipt = await deleteNamespace(message('budgeted'), getPrisma(), {
      budgetMs: 60_000,
      sizes: { records: 10, entries: 25 },
    });

    expect(receipt).toMatchObject({ deleted: RECORDS, removed: { idempotency_entries: ENTRIES } });
    expect(await left('budgeted')).toEqual({
      records: 0,
      postings: 0,
      entries: 0,
      relations: 0,
      progress: 0,
    });
  });
});
