import { Subjects } from '@tm/contracts';
import { type SqlRunner, timeOrderedId } from '@tm/kit';
import type pg from 'pg';
import { removePostingsAfter } from './remove-postings.js';

/*
 * Namespace deletion jobs. A DELETE creates one (or finds the one running for that tenant and
 * namespace); from then on the namespace's records are hidden from every read, and the deletion worker
 * (domain/deletion-worker.ts) removes them here one bounded batch at a time. Each batch is one
 * transaction that also commits the job's counts and keyset cursor, so a crash loses at most the batch
 * in flight and a restart goes on from the last committed one, never from nothing.
 *
 * Nothing here joins the word list against the postings: postings are removed by their scope key (the
 * first column of their primary key) in key order, records by the (tenant, namespace, event id) unique
 * index, so a batch costs its own rows whatever the namespace's vocabulary or size. (The step-by-step
 * deletion this replaces re-tokenized each record and joined its terms against the postings with hash
 * and merge joins switched off: a 32 KB memory of 5,400 distinct words ran past every deadline.)
 */

export interface BatchSizes {
  /** Records (and idempotency entries, and relations) removed per batch. */
  records: number;
  /** Postings removed per batch: a record holds about 20-40, a long one thousands. */
  postings: number;
}

/** Postings go first (the stemmed index's, then any old ones a namespace not yet re-indexed has). */
export type DeletionPhase = 'postings' | 'legacy_postings' | 'records' | 'entries' | 'relations';

/** How long a job's completion waits for the writes in flight (a write's statement takes a few ms). */
const COMPLETION_LOCK_TIMEOUT_MS = 2_000;

const POSTINGS_KEY = { postings: 'memory_scope_key_v2', legacy_postings: 'memory_scope_key' } as const;

/** A job as the receipt reads it: counts as numbers, times as ISO text. */
export interface DeletionJob {
  id: string;
  tenantId: string;
  namespace: string;
  status: 'in_progress' | 'completed';
  recordsTotal: number;
  records: number;
  relations: number;
  idempotencyEntries: number;
  batches: number;
  startedAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

const JOB_COLUMNS = `id::text AS id, tenant_id, namespace, status::text AS status,
  records_total, records, relations, idempotency_entries, batches,
  started_at, updated_at, finished_at`;

interface JobRow {
  id: string;
  tenant_id: string;
  namespace: string;
  status: 'in_progress' | 'completed';
  records_total: string | number;
  records: string | number;
  relations: string | number;
  idempotency_entries: string | number;
  batches: number;
  started_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

const jobOf = (r: JobRow): DeletionJob => ({
  id: r.id,
  tenantId: r.tenant_id,
  namespace: r.namespace,
  status: r.status,
  recordsTotal: Number(r.records_total),
  records: Number(r.records),
  relations: Number(r.relations),
  idempotencyEntries: Number(r.idempotency_entries),
  batches: r.batches,
  startedAt: r.started_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
  finishedAt: r.finished_at?.toISOString() ?? null,
});

/**
 * The `namespace.deleted` event of a job row `j` that has just completed, as an outbox row
 * (NamespaceDeletedEvent), for an INSERT … SELECT in the statement or transaction that
 * completes it: `$idParam` is the row's (and the event's) id. Ids and counts only.
 */
const namespaceDeletedOutboxRow = (idParam: string, subjectParam: string) =>
  `SELECT ${idParam}::uuid, ${subjectParam}, jsonb_build_object(
     'event_id', ${idParam}::text, 'tenant_id', j.tenant_id, 'deletion_id', j.id::text,
     'namespace', j.namespace, 'records_deleted', j.records, 'request_id', j.request_id,
     'occurred_at', to_char(j.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;

/**
 * Start deleting a namespace, or find the deletion already running for it (one per tenant and
 * namespace: a partial unique index). An empty namespace's job is created completed. A concurrent
 * start of the same namespace waits on the index for the other to commit, then finds its job.
 */
export async function startDeletion(
  run: SqlRunner,
  job: { id: string; tenantId: string; namespace: string; requestId: string },
): Promise<{ job: DeletionJob }> {
  const args = [
    job.id,
    job.tenantId,
    job.namespace,
    job.requestId,
    timeOrderedId(),
    Subjects.memory.namespaceDeleted,
  ];
  for (let attempt = 0; attempt < 3; attempt++) {
    // An empty namespace's job is completed here, so its namespace.deleted event is written here too.
    const [created] = await run<JobRow>(
      `WITH held AS (
         SELECT count(*) AS n FROM memory_record WHERE tenant_id = $2 AND namespace = $3),
       j AS (
         INSERT INTO namespace_deletion (id, tenant_id, namespace, request_id, records_total, status, finished_at)
         SELECT $1::uuid, $2, $3, $4, n,
                CASE WHEN n = 0 THEN 'completed' ELSE 'in_progress' END::"DeletionStatus",
                CASE WHEN n = 0 THEN now() END
           FROM held
         ON CONFLICT (tenant_id, namespace) WHERE status = 'in_progress' DO NOTHING
         RETURNING *),
       event AS (
         INSERT INTO outbox_message (id, subject, payload)
         ${namespaceDeletedOutboxRow('$5', '$6')} FROM j WHERE j.status = 'completed')
       SELECT ${JOB_COLUMNS} FROM j`,
      args,
    );
    if (created) return { job: jobOf(created) };
    const running = await findRunning(run, job.tenantId, job.namespace);
    if (running) return { job: running };
    // The one in the way finished between the two statements: start again.
  }
  throw new Error('namespace deletion: could not start or find the running job');
}

async function findRunning(run: SqlRunner, tenantId: string, namespace: string) {
  const [row] = await run<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM namespace_deletion
      WHERE tenant_id = $1 AND namespace = $2 AND status = 'in_progress'`,
    [tenantId, namespace],
  );
  return row ? jobOf(row) : undefined;
}

/** One job of the tenant by id; another tenant's (or an unknown id) is undefined. */
export async function findDeletion(run: SqlRunner, tenantId: string, id: string) {
  const [row] = await run<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM namespace_deletion WHERE id = $1::uuid AND tenant_id = $2`,
    [id, tenantId],
  );
  return row ? jobOf(row) : undefined;
}

/** Is this namespace being deleted? Its records are then hidden from every read. */
export async function isBeingDeleted(run: SqlRunner, tenantId: string, namespace: string) {
  const rows = await run(
    `SELECT 1 FROM namespace_deletion WHERE tenant_id = $1 AND namespace = $2 AND status = 'in_progress'`,
    [tenantId, namespace],
  );
  return rows.length > 0;
}

/** Every namespace being deleted (the write path's refusal list). */
export async function namespacesBeingDeleted(
  run: SqlRunner,
): Promise<Array<{ tenant_id: string; namespace: string }>> {
  return run(`SELECT tenant_id, namespace FROM namespace_deletion WHERE status = 'in_progress'`, []);
}

/** The SQL condition that hides a record `alias` of a namespace being deleted. */
export const notBeingDeleted = (alias: string) =>
  `NOT EXISTS (SELECT 1 FROM namespace_deletion d
     WHERE d.tenant_id = ${alias}.tenant_id AND d.namespace = ${alias}.namespace AND d.status = 'in_progress')`;

interface LockedJob {
  id: string;
  tenant_id: string;
  namespace: string;
  phase: DeletionPhase;
  cursor_term: string | null;
  cursor_occurred_at: string | null;
  cursor_memory_id: string | null;
  cursor_event_id: string | null;
}

/**
 * Run one batch of the running job least recently advanced, in its own transaction, and say which job
 * it advanced (undefined: none is waiting). `FOR UPDATE SKIP LOCKED` gives each job to one worker at a
 * time, across instances; its batch and its counts commit together.
 */
export async function runDeletionBatch(
  pool: pg.Pool,
  sizes: BatchSizes,
): Promise<{ id: string; completed: boolean } | undefined> {
  const client = await pool.connect();
  // A connection ended between this transaction's statements (a failover, pg_terminate_backend) emits
  // 'error' with no statement to take it, which would be an uncaught exception: kept here, the next
  // statement fails, the batch with it, and the broken connection is dropped rather than pooled.
  let lost: Error | undefined;
  const onLost = (err: Error) => {
    lost = err;
  };
  client.on('error', onLost);
  try {
    await client.query('BEGIN');
    const {
      rows: [job],
    } = await client.query<LockedJob>(
      `SELECT id::text AS id, tenant_id, namespace, phase, cursor_term,
              cursor_occurred_at::text AS cursor_occurred_at, cursor_memory_id::text AS cursor_memory_id,
              cursor_event_id
         FROM namespace_deletion WHERE status = 'in_progress'
        ORDER BY updated_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
    );
    if (!job) {
      await client.query('COMMIT');
      return undefined;
    }
    let completed: boolean;
    try {
      completed = await advance(client, job, sizes);
    } catch (err) {
      // A job whose batch fails goes to the back of the queue, so it cannot hold up the others.
      await client.query('ROLLBACK');
      await client.query('UPDATE namespace_deletion SET updated_at = now() WHERE id = $1::uuid', [job.id]);
      throw err;
    }
    await client.query('COMMIT');
    return { id: job.id, completed };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.off('error', onLost);
    client.release(lost);
  }
}

/** One phase's batch; the job row takes its counts and where the next batch starts. */
async function advance(client: pg.PoolClient, job: LockedJob, sizes: BatchSizes): Promise<boolean> {
  const scope = [job.tenant_id, job.namespace];
  const save = (set: string, params: unknown[]) =>
    client.query(
      `UPDATE namespace_deletion SET ${set}, batches = batches + 1, updated_at = now() WHERE id = $1::uuid`,
      [job.id, ...params],
    );

  if (job.phase === 'postings' || job.phase === 'legacy_postings') {
    const next = job.phase === 'postings' ? 'legacy_postings' : 'records';
    const { removed: n, last } = await removePostingsAfter(
      client,
      POSTINGS_KEY[job.phase],
      [job.tenant_id, job.namespace],
      { term: job.cursor_term, occurred_at: job.cursor_occurred_at, memory_id: job.cursor_memory_id },
      sizes.postings,
    );
    if (n < sizes.postings) {
      await save(
        `postings = postings + $2, phase = $3, cursor_term = NULL,
                  cursor_occurred_at = NULL, cursor_memory_id = NULL`,
        [n, next],
      );
    } else {
      await save(
        'postings = postings + $2, cursor_term = $3, cursor_occurred_at = $4, cursor_memory_id = $5',
        [n, last.term, last.occurred_at, last.memory_id],
      );
    }
    return false;
  }

  if (job.phase === 'records') {
    const { rows } = await client.query<{ n: number; last: string | null }>(
      `WITH batch AS (
         SELECT ctid, event_id FROM memory_record
          WHERE tenant_id = $1 AND namespace = $2 AND event_id > $3
          ORDER BY event_id LIMIT $4),
       gone AS (DELETE FROM memory_record WHERE ctid = ANY (ARRAY(SELECT ctid FROM batch)) RETURNING 1)
       SELECT (SELECT count(*) FROM gone)::int AS n, (SELECT max(event_id) FROM batch) AS last`,
      [...scope, job.cursor_event_id ?? '', sizes.records],
    );
    const n = rows[0]?.n ?? 0;
    const done = n < sizes.records;
    await save(
      `records = records + $2, records_total = greatest(records_total, records + $2),
       cursor_event_id = $3, phase = $4`,
      [n, done ? null : rows[0]?.last, done ? 'entries' : 'records'],
    );
    return false;
  }

  if (job.phase === 'entries') {
    const n = await countDeleted(
      client,
      `DELETE FROM idempotency_entry WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM idempotency_entry WHERE tenant_id = $1 AND namespace = $2 LIMIT $3))`,
      [...scope, sizes.records],
    );
    await save(`idempotency_entries = idempotency_entries + $2, phase = $3`, [
      n,
      n < sizes.records ? 'relations' : 'entries',
    ]);
    return false;
  }

  const n = await countDeleted(
    client,
    `DELETE FROM supersession_relation WHERE ctid = ANY (ARRAY(
       SELECT ctid FROM supersession_relation WHERE tenant_id = $1 AND namespace = $2 LIMIT $3))`,
    [...scope, sizes.records],
  );
  if (n === sizes.records) {
    await save('relations = relations + $2', [n]);
    return false;
  }
  // A write that raced the deletion's start may have landed behind a cursor: sweep again if so. Its
  // statement may not have committed yet (its snapshot came before the job's, so it did not see the
  // fence): SHARE waits for every write in flight on memory_record and lets none start until this
  // transaction ends, so the look below sees it, and a write after the completion is a new one. Held
  // for one probe; bounded, so a long wait fails the batch (tried again next tick) rather than queueing
  // every write behind it.
  await client.query(`SET LOCAL lock_timeout = '${COMPLETION_LOCK_TIMEOUT_MS}ms'`);
  await client.query('LOCK TABLE memory_record IN SHARE MODE');
  const {
    rows: [left],
  } = await client.query<{ left: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM memory_record WHERE tenant_id = $1 AND namespace = $2)
         OR EXISTS (SELECT 1 FROM memory_term WHERE scope_key = memory_scope_key_v2($1, $2))
         OR EXISTS (SELECT 1 FROM memory_term WHERE scope_key = memory_scope_key($1, $2)) AS left`,
    scope,
  );
  if (left?.left) {
    await save(`relations = relations + $2, phase = 'postings'`, [n]);
    return false;
  }
  await save(`relations = relations + $2, status = 'completed', finished_at = now()`, [n]);
  // Nothing of it is left, so neither is its record count, nor a re-index it was waiting for.
  await client.query('DELETE FROM memory_scope_count WHERE scope_key = memory_scope_key_v2($1, $2)', scope);
  await client.query('DELETE FROM memory_reindex WHERE tenant_id = $1 AND namespace = $2', scope);
  // In the batch's transaction: the event is committed with the completion, or neither is.
  await client.query(
    `INSERT INTO outbox_message (id, subject, payload)
     ${namespaceDeletedOutboxRow('$2', '$3')} FROM namespace_deletion j WHERE j.id = $1::uuid`,
    [job.id, timeOrderedId(), Subjects.memory.namespaceDeleted],
  );
  return true;
}

async function countDeleted(client: pg.PoolClient, sql: string, params: unknown[]) {
  const { rows } = await client.query<{ n: number }>(
    `WITH gone AS (${sql} RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    params,
  );
  return rows[0]?.n ?? 0;
}

/** Completed jobs older than the retention go (their receipts were there to be polled meanwhile). */
export async function pruneFinishedDeletions(run: SqlRunner, retentionHours: number): Promise<number> {
  const [row] = await run<{ n: number }>(
    `WITH gone AS (
       DELETE FROM namespace_deletion
        WHERE status = 'completed' AND finished_at < now() - make_interval(hours => $1)
       RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [retentionHours],
  );
  return row?.n ?? 0;
}
