import type pg from 'pg';
import { removePostingsAfter } from './remove-postings.js';

/*
 * Re-indexing a namespace written before recall matched on stems (memory_reindex, the
 * weighted_recall migration). The reindex worker (domain/reindex-worker.ts) runs it one bounded
 * batch at a time, each batch one transaction that also commits the row's counts and cursor, so a
 * crash loses at most the batch in flight and any instance goes on from the last committed one.
 *
 * pending → indexing: each batch posts the stemmed terms of the next records (by event id) under
 * memory_scope_key_v2, exactly as the write path posts a new record's. Records written meanwhile
 * already have theirs (ON CONFLICT DO NOTHING): the walk only has to reach those written before.
 * indexing → cleaning, once no record is left: recall ranks by the stemmed postings from the next
 * recall on (rank-weighted.ts treats only pending and indexing as legacy), and the old postings
 * (memory_scope_key) are removed in key order. cleaning → completed: the row stays, for progress.
 */

export type ReindexStatus = 'pending' | 'indexing' | 'cleaning' | 'completed';

export interface ReindexSizes {
  /** Records indexed per batch. */
  records: number;
  /** Old postings removed per batch: a record holds about 20-40. */
  postings: number;
}

/** What one batch did, to the namespace it claimed. */
export interface ReindexBatch {
  tenantId: string;
  namespace: string;
  /** Its status when the batch claimed it. */
  from: ReindexStatus;
  /** The namespace's status once the batch committed. */
  status: ReindexStatus;
  /** Records whose stemmed postings this batch wrote. */
  records: number;
  /** Old postings this batch removed. */
  postings: number;
}

interface Claimed {
  tenant_id: string;
  namespace: string;
  status: Exclude<ReindexStatus, 'completed'>;
  cursor_event_id: string | null;
  cursor_term: string | null;
  cursor_occurred_at: string | null;
  cursor_memory_id: string | null;
}

/**
 * Run one batch of the namespace least recently advanced, in its own transaction (undefined: none
 * has work left). The claim is the row's lock, `FOR NO KEY UPDATE SKIP LOCKED`, taken in the batch's
 * transaction: each namespace goes to one worker at a time across instances, and a crashed worker's
 * claim ends with its connection, with no lease to expire. That lock does not conflict with the KEY
 * SHARE lock a write to a legacy namespace takes on the row (idempotency-ledger.ts), so neither waits
 * for the other. A namespace being deleted is left to its deletion, which removes its row.
 * `terms` is the stemmed tokenizer, the write path's.
 */
export async function runReindexBatch(
  pool: pg.Pool,
  sizes: ReindexSizes,
  terms: (text: string) => string[],
): Promise<ReindexBatch | undefined> {
  const client = await pool.connect();
  // As in runDeletionBatch: a connection lost between statements fails the next one, not the process.
  let lost: Error | undefined;
  const onLost = (err: Error) => {
    lost = err;
  };
  client.on('error', onLost);
  try {
    await client.query('BEGIN');
    const {
      rows: [claimed],
    } = await client.query<Claimed>(
      `SELECT tenant_id, namespace, status, cursor_event_id, cursor_term,
              cursor_occurred_at::text AS cursor_occurred_at, cursor_memory_id::text AS cursor_memory_id
         FROM memory_reindex r
        WHERE status IN ('pending', 'indexing', 'cleaning')
          AND NOT EXISTS (SELECT 1 FROM namespace_deletion d
                           WHERE d.tenant_id = r.tenant_id AND d.namespace = r.namespace
                             AND d.status = 'in_progress')
        ORDER BY updated_at LIMIT 1 FOR NO KEY UPDATE SKIP LOCKED`,
    );
    if (!claimed) {
      await client.query('COMMIT');
      return undefined;
    }
    let batch: Omit<ReindexBatch, 'from'>;
    try {
      batch =
        claimed.status === 'cleaning'
          ? await clean(client, claimed, sizes)
          : await index(client, claimed, sizes, terms);
    } catch (err) {
      // A namespace whose batch fails goes to the back of the queue, so it cannot hold up the others.
      await client.query('ROLLBACK');
      await client.query(
        'UPDATE memory_reindex SET updated_at = now() WHERE tenant_id = $1 AND namespace = $2',
        [claimed.tenant_id, claimed.namespace],
      );
      throw err;
    }
    await client.query('COMMIT');
    return { ...batch, from: claimed.status };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.off('error', onLost);
    client.release(lost);
  }
}

async function index(
  client: pg.PoolClient,
  row: Claimed,
  sizes: ReindexSizes,
  terms: (text: string) => string[],
): Promise<Omit<ReindexBatch, 'from'>> {
  const scope = [row.tenant_id, row.namespace];
  if (row.status === 'pending') {
    // Counted now, not at the upgrade: what the walk will find, for progress.
    await client.query(
      `UPDATE memory_reindex SET status = 'indexing', started_at = now(), updated_at = now(),
              records_total = (SELECT count(*) FROM memory_record WHERE tenant_id = $1 AND namespace = $2)
        WHERE tenant_id = $1 AND namespace = $2`,
      scope,
    );
  }
  // KEY SHARE: a forget (FOR UPDATE, then DELETE) of one of these records waits for this batch and
  // then removes the postings it wrote, or went first and the record is skipped here; a supersession
  // (a plain update of the record) waits for nothing.
  const { rows } = await client.query<{ id: string; event_id: string; occurred_at: Date; text: string }>(
    `SELECT id::text AS id, event_id, occurred_at, text FROM memory_record
      WHERE tenant_id = $1 AND namespace = $2 AND event_id > $3
      ORDER BY event_id LIMIT $4
        FOR KEY SHARE`,
    [...scope, row.cursor_event_id ?? '', sizes.records],
  );
  const last = rows.at(-1);
  if (!last) {
    await client.query(
      `UPDATE memory_reindex SET status = 'cleaning', finished_at = now(), updated_at = now(),
              records_total = records_done, cursor_event_id = NULL
        WHERE tenant_id = $1 AND namespace = $2`,
      scope,
    );
    return { tenantId: row.tenant_id, namespace: row.namespace, status: 'cleaning', records: 0, postings: 0 };
  }
  const ids: string[] = [];
  const at: Date[] = [];
  const postings: string[] = [];
  for (const r of rows) {
    for (const term of terms(r.text)) {
      ids.push(r.id);
      at.push(r.occurred_at);
      postings.push(term);
    }
  }
  await client.query(
    `INSERT INTO memory_term (scope_key, term, occurred_at, memory_id)
     SELECT memory_scope_key_v2($1, $2), p.term, p.occurred_at, p.memory_id
       FROM unnest($3::text[], $4::timestamptz[], $5::uuid[]) AS p(term, occurred_at, memory_id)
     ON CONFLICT DO NOTHING`,
    [...scope, postings, at, ids],
  );
  await client.query(
    `UPDATE memory_reindex SET cursor_event_id = $3, records_done = records_done + $4,
            records_total = greatest(records_total, records_done + $4), updated_at = now()
      WHERE tenant_id = $1 AND namespace = $2`,
    [...scope, last.event_id, rows.length],
  );
  return {
    tenantId: row.tenant_id,
    namespace: row.namespace,
    status: 'indexing',
    records: rows.length,
    postings: 0,
  };
}

async function clean(
  client: pg.PoolClient,
  row: Claimed,
  sizes: ReindexSizes,
): Promise<Omit<ReindexBatch, 'from'>> {
  const scope = [row.tenant_id, row.namespace];
  const done = (status: ReindexStatus, postings: number) => ({
    tenantId: row.tenant_id,
    namespace: row.namespace,
    status,
    records: 0,
    postings,
  });
  const { removed: n, last } = await removePostingsAfter(
    client,
    'memory_scope_key',
    [row.tenant_id, row.namespace],
    { term: row.cursor_term, occurred_at: row.cursor_occurred_at, memory_id: row.cursor_memory_id },
    sizes.postings,
  );
  if (n === sizes.postings) {
    await client.query(
      `UPDATE memory_reindex SET cursor_term = $3, cursor_occurred_at = $4, cursor_memory_id = $5,
              updated_at = now()
        WHERE tenant_id = $1 AND namespace = $2`,
      [...scope, last.term, last.occurred_at, last.memory_id],
    );
    return done('cleaning', n);
  }
  // The walk reached the end. A write that saw the namespace still indexing may yet commit old
  // postings anywhere in the key order: it holds KEY SHARE on the row until it commits, which FOR
  // UPDATE waits out. Writes from then on see `cleaning` and post none.
  await client.query(
    'SELECT 1 FROM memory_reindex WHERE tenant_id = $1 AND namespace = $2 FOR UPDATE',
    scope,
  );
  const {
    rows: [late],
  } = await client.query<{ n: number }>(
    `WITH gone AS (
       DELETE FROM memory_term WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM memory_term WHERE scope_key = memory_scope_key($1, $2) LIMIT $3))
       RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [...scope, sizes.postings],
  );
  const stragglers = late?.n ?? 0;
  // More than a batch of them (never seen: a handful of writes were in flight): walk again.
  const status = stragglers < sizes.postings ? 'completed' : 'cleaning';
  await client.query(
    `UPDATE memory_reindex SET status = $3, cursor_term = NULL, cursor_occurred_at = NULL,
            cursor_memory_id = NULL, updated_at = now()
      WHERE tenant_id = $1 AND namespace = $2`,
    [...scope, status],
  );
  return done(status, n + stragglers);
}

/** Every namespace's re-index, summed: what health reports while any has work left. */
export interface ReindexProgress {
  namespaces_pending: number;
  namespaces_indexing: number;
  namespaces_cleaning: number;
  namespaces_completed: number;
  namespaces_total: number;
  records_done: number;
  records_total: number;
}

/** The summed progress; undefined where no namespace was ever re-indexed (a fresh install). */
export async function reindexProgress(pool: pg.Pool): Promise<ReindexProgress | undefined> {
  const {
    rows: [row],
  } = await pool.query<Record<keyof ReindexProgress, string>>(
    `SELECT count(*) FILTER (WHERE status = 'pending') AS namespaces_pending,
            count(*) FILTER (WHERE status = 'indexing') AS namespaces_indexing,
            count(*) FILTER (WHERE status = 'cleaning') AS namespaces_cleaning,
            count(*) FILTER (WHERE status = 'completed') AS namespaces_completed,
            count(*) AS namespaces_total,
            coalesce(sum(records_done), 0) AS records_done,
            coalesce(sum(greatest(records_total, records_done)), 0) AS records_total
       FROM memory_reindex`,
  );
  if (!row || Number(row.namespaces_total) === 0) return undefined;
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [k, Number(v)]),
  ) as unknown as ReindexProgress;
}
