import { prismaRunner, type SqlRunner } from '@tm/kit';
import type { Db } from './prisma-client.js';

export interface StepSizes {
  /** Records (with their postings, about 20-40 each) removed per step. */
  records: number;
  /** Idempotency entries removed per step once the records are gone. */
  entries: number;
}

export interface DeletionCounts {
  records: number;
  relations: number;
  idempotency: number;
}

/**
 * One step of removing a tenant's namespace: up to `sizes.records` records with their recall
 * postings; once no records are left, up to `sizes.entries` idempotency entries; and when both fall
 * short, the supersession relations, the rest of the entries, and the progress earlier steps kept.
 * Run each step in its own transaction. A namespace that fits in one step goes whole or not at all,
 * as before; a larger one goes in committed steps (a delete of 1M records in one transaction ran for
 * minutes and was rolled back at every deadline), `done` only on the step that finishes, whose counts
 * are the whole deletion's.
 *
 * Steps of one namespace take a transaction-scoped advisory lock on its scope key, so two callers (or
 * two memory instances) take turns rather than counting the same rows twice.
 */
export async function deleteNamespaceStep(
  db: Db,
  scope: { tenantId: string; namespace: string },
  termsOf: (text: string) => string[],
  sizes: StepSizes,
): Promise<{ done: boolean; counts: DeletionCounts }> {
  const run = prismaRunner(db);
  const args = [scope.tenantId, scope.namespace];
  await db.$executeRawUnsafe('SELECT pg_advisory_xact_lock(memory_scope_key($1, $2))', ...args);
  const step: DeletionCounts = { records: 0, relations: 0, idempotency: 0 };

  // Event times travel as text, exact to the millisecond both ways.
  const records = await run<StoredRecord>(
    `SELECT id::text AS id, occurred_at::text AS occurred_at, text FROM memory_record
      WHERE tenant_id = $1 AND namespace = $2 LIMIT $3`,
    [...args, sizes.records],
  );
  if (records.length > 0) {
    await deletePostings(db, run, scope, records, termsOf);
    step.records = await countOf(run, 'DELETE FROM memory_record WHERE id = ANY($1::uuid[])', [
      records.map((r) => r.id),
    ]);
  }
  if (records.length < sizes.records) {
    step.idempotency = await countOf(
      run,
      `DELETE FROM idempotency_entry WHERE (tenant_id, key) IN (
         SELECT tenant_id, key FROM idempotency_entry WHERE tenant_id = $1 AND namespace = $2
          LIMIT $3)`,
      [...args, sizes.entries],
    );
  }
  const done = records.length < sizes.records && step.idempotency < sizes.entries;
  if (!done) {
    const [sum] = await run<Counted>(
      `INSERT INTO namespace_deletion (tenant_id, namespace, records, idempotency_entries)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (tenant_id, namespace) DO UPDATE
         SET records = namespace_deletion.records + excluded.records,
             idempotency_entries = namespace_deletion.idempotency_entries + excluded.idempotency_entries,
             updated_at = now()
       RETURNING records, relations, idempotency_entries AS idempotency`,
      [...args, step.records, step.idempotency],
    );
    return { done, counts: numbers(sum) };
  }
  step.relations = await countOf(
    run,
    'DELETE FROM supersession_relation WHERE tenant_id = $1 AND namespace = $2',
    args,
  );
  const [earlier] = await run<Counted>(
    `DELETE FROM namespace_deletion WHERE tenant_id = $1 AND namespace = $2
     RETURNING records, relations, idempotency_entries AS idempotency`,
    args,
  );
  const before = numbers(earlier);
  return {
    done,
    counts: {
      records: before.records + step.records,
      relations: before.relations + step.relations,
      idempotency: before.idempotency + step.idempotency,
    },
  };
}

interface StoredRecord {
  id: string;
  occurred_at: string;
  text: string;
}

type Counted = Record<keyof DeletionCounts, bigint | number | string>;

/**
 * Each record's postings are exactly the terms of its text (the write path stores tokenize(text) at
 * its event time), so they are deleted by key, one index probe each. Joins are pinned to nested
 * loops: a namespace's statistics are rarely fresh, and a hash join would read every posting of it.
 */
async function deletePostings(
  db: Db,
  run: SqlRunner,
  scope: { tenantId: string; namespace: string },
  records: StoredRecord[],
  termsOf: (text: string) => string[],
) {
  const terms: string[] = [];
  const times: string[] = [];
  const ids: string[] = [];
  for (const record of records) {
    for (const term of termsOf(record.text)) {
      terms.push(term);
      times.push(record.occurred_at);
      ids.push(record.id);
    }
  }
  await db.$executeRawUnsafe('SET LOCAL enable_hashjoin = off');
  await db.$executeRawUnsafe('SET LOCAL enable_mergejoin = off');
  await run(
    `DELETE FROM memory_term t
      USING unnest($3::text[], $4::timestamptz[], $5::uuid[]) AS p(term, occurred_at, memory_id)
      WHERE t.scope_key = memory_scope_key($1, $2) AND t.term = p.term
        AND t.occurred_at = p.occurred_at AND t.memory_id = p.memory_id`,
    [scope.tenantId, scope.namespace, terms, times, ids],
  );
}

async function countOf(run: SqlRunner, sql: string, params: unknown[]) {
  const [row] = await run<{ n: number }>(
    `WITH gone AS (${sql} RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    params,
  );
  return row?.n ?? 0;
}

const numbers = (row: Counted | undefined): DeletionCounts => ({
  records: Number(row?.records ?? 0),
  relations: Number(row?.relations ?? 0),
  idempotency: Number(row?.idempotency ?? 0),
});
