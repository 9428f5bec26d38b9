import type { SqlRunner } from '@tm/kit';
import type pg from 'pg';

/** A tenant's anomaly the watch holds open (raised, not yet cleared). */
export interface OpenAnomaly {
  id: string;
  tenantId: string;
  name: string;
  severity: 'warning' | 'critical';
}

/** An outbox row to commit with a change: written only when the change happened (same statement). */
export interface OutboxEvent {
  id: string;
  subject: string;
  payload: unknown;
}

/**
 * Run `pass` holding the anomaly watch's lock (a session advisory lock on a connection of its own),
 * or skip it (undefined) when another instance holds it: one watch pass at a time in the deployment,
 * so passes do not repeat each other's reads nor race each other's raises and clears. A connection
 * that dies takes the lock with it.
 */
export async function withWatchLock<T>(
  pool: pg.Pool,
  pass: (run: SqlRunner) => Promise<T>,
): Promise<T | undefined> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const { rows } = await client.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_lock(hashtext('telemetry:anomaly-watch')) AS locked`,
    );
    if (!rows[0]?.locked) return undefined;
    try {
      return await pass(async <R>(sql: string | { text: string }, params: unknown[]) => {
        const text = typeof sql === 'string' ? sql : sql.text;
        return (await client.query(text, params)).rows as R[];
      });
    } finally {
      await client.query(`SELECT pg_advisory_unlock(hashtext('telemetry:anomaly-watch'))`).catch((err) => {
        broken = err as Error; // the connection is dropped below, and the lock with it
      });
    }
  } catch (err) {
    broken ??= err as Error;
    throw err;
  } finally {
    client.release(broken);
  }
}

/**
 * Tenants whose anomalies a pass judges: those with requests since `from` (the rollups hold every
 * stored record's minute, on their minute index), and those with an anomaly open, which may clear.
 */
export async function tenantsToWatch(run: SqlRunner, from: Date): Promise<string[]> {
  const rows = await run<{ tenant_id: string }>(
    `SELECT tenant_id FROM request_rollup WHERE minute >= date_trunc('minute', $1::timestamptz)
      UNION
     SELECT tenant_id FROM raised_anomaly WHERE cleared_at IS NULL`,
    [from],
  );
  return rows.map((r) => r.tenant_id);
}

export async function openAnomalies(run: SqlRunner): Promise<OpenAnomaly[]> {
  return run<OpenAnomaly>(
    `SELECT id::text AS id, tenant_id AS "tenantId", name, severity FROM raised_anomaly WHERE cleared_at IS NULL`,
    [],
  );
}

/**
 * Open an anomaly and commit its event with it, in one statement: nothing (false) when the tenant
 * already has this anomaly open (the partial unique index), so it is raised, and announced, once.
 */
export async function raiseAnomaly(
  run: SqlRunner,
  anomaly: {
    id: string;
    tenantId: string;
    name: string;
    severity: string;
    observed: number;
    threshold: number;
  },
  at: Date,
  event: OutboxEvent,
): Promise<boolean> {
  const rows = await run(
    `WITH raised AS (
       INSERT INTO raised_anomaly (id, tenant_id, name, severity, observed, threshold, raised_at)
       VALUES ($1::uuid, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (tenant_id, name) WHERE cleared_at IS NULL DO NOTHING
       RETURNING id
     )
     INSERT INTO outbox_message (id, subject, payload)
     SELECT $8::uuid, $9, $10::jsonb FROM raised
     RETURNING id`,
    [
      anomaly.id,
      anomaly.tenantId,
      anomaly.name,
      anomaly.severity,
      anomaly.observed,
      anomaly.threshold,
      at,
      event.id,
      event.subject,
      JSON.stringify(event.payload),
    ],
  );
  return rows.length === 1;
}

/** An open warning becomes critical, with its event, in one statement; false when it was not (any more) an open warning. */
export async function escalateAnomaly(
  run: SqlRunner,
  id: string,
  measured: { observed: number; threshold: number },
  event: OutboxEvent,
): Promise<boolean> {
  const rows = await run(
    `WITH escalated AS (
       UPDATE raised_anomaly SET severity = 'critical', observed = $2, threshold = $3
        WHERE id = $1::uuid AND cleared_at IS NULL AND severity = 'warning'
       RETURNING id
     )
     INSERT INTO outbox_message (id, subject, payload)
     SELECT $4::uuid, $5, $6::jsonb FROM escalated
     RETURNING id`,
    [id, measured.observed, measured.threshold, event.id, event.subject, JSON.stringify(event.payload)],
  );
  return rows.length === 1;
}

/** Anomalies a pass no longer found: cleared (no event); the next time one is found it is raised anew. */
export async function clearAnomalies(run: SqlRunner, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await run(
    'UPDATE raised_anomaly SET cleared_at = now() WHERE id = ANY($1::uuid[]) AND cleared_at IS NULL RETURNING id',
    [ids],
  );
  return rows.length;
}

/** Cleared anomalies past retention go with the history they were judged from. */
export async function pruneClearedAnomalies(run: SqlRunner, retentionDays: number): Promise<void> {
  await run('DELETE FROM raised_anomaly WHERE cleared_at < now() - make_interval(days => $1)', [
    retentionDays,
  ]);
}
