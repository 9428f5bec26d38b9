import pg from 'pg';
// The consumer's own counting SQL, so seeded records reach the rollups and events total as stored ones do.
import {
  COUNT_STORED_RECORDS,
  STORED_COLUMNS,
} from '../../services/telemetry/src/data-access/count-stored-records.js';
import { serverUrl } from './baseline-database.js';

/** Records per statement; each statement also adds its records to the rollups and the listed count. */
const BATCH = 100_000;

/** The telemetry service's own database, on the bench's server. */
export function telemetryDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const database = new URL(env.TELEMETRY_DATABASE_URL || 'postgresql://x/tm_telemetry').pathname.slice(1);
  return serverUrl(database, env);
}

/**
 * The same rows the telemetry consumer stores for a request (request-record-repository.ts), made in
 * SQL: a mix of writes and recalls, 2 % failed and 1 % rate limited, latencies of 2-80 ms with a tail,
 * spread evenly over [from, to). The rollups and the events total are added in the same statement, by
 * the consumer's own SQL.
 */
const INSERT = `
  WITH stored AS (
    INSERT INTO request_record (record_id, request_id, tenant_id, method, route, operation, status, outcome, state,
                                error_code, latency_ms, units, billing_state, namespace_ref, deployment_version,
                                gateway_instance, occurred_at)
    SELECT gen_random_uuid(), 'bench-' || i, $1, 'POST', r.route, r.operation, r.status,
           CASE WHEN r.status = 429 THEN 'blocked' WHEN r.status >= 400 THEN 'failed' ELSE 'accepted' END,
           NULL, CASE r.status WHEN 429 THEN 'rate_limited' WHEN 500 THEN 'internal_error' END,
           2 + (i % 78) + CASE WHEN i % 100 = 0 THEN 400 ELSE 0 END, 1, 'billable', NULL, 'bench', 'bench',
           $2::timestamptz + (($3::timestamptz - $2::timestamptz) * ((i - $7)::float8 / $5))
      FROM generate_series($4::bigint, $4::bigint + $6 - 1) AS i
     CROSS JOIN LATERAL (SELECT CASE WHEN i % 2 = 0 THEN '/api/v1/memory/write' ELSE '/api/v1/memory/recall' END AS route,
                                CASE WHEN i % 2 = 0 THEN 'memory.write' ELSE 'memory.recall' END AS operation,
                                CASE WHEN i % 50 = 7 THEN 500 WHEN i % 100 = 3 THEN 429 ELSE 200 END AS status) AS r
    RETURNING ${STORED_COLUMNS}),
  ${COUNT_STORED_RECORDS}`;

/** The tenant a key belongs to, from the telemetry record of one of its requests. */
export async function tenantOfRequest(
  requestId: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const client = new pg.Client({ connectionString: telemetryDatabaseUrl(env) });
  await client.connect();
  try {
    for (let attempt = 0; attempt < 100; attempt++) {
      const { rows } = await client.query<{ tenant_id: string }>(
        'SELECT tenant_id FROM request_record WHERE request_id = $1',
        [requestId],
      );
      if (rows[0]?.tenant_id) return rows[0].tenant_id;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`No telemetry record of request ${requestId}`);
  } finally {
    await client.end();
  }
}

/**
 * Fill a tenant's request history straight into the telemetry database: `recent` records over the
 * last hour and `older` over the 29 days before it (inside the 30-day retention), so telemetry reads
 * can be measured at the sizes the targets name (1M in the hour, 10M in history) without making the
 * requests. Returns the seconds it took.
 */
export async function seedTelemetry(
  tenantId: string,
  counts: { recent: number; older: number },
  onProgress: (message: string) => void = () => {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: telemetryDatabaseUrl(env) });
  await client.connect();
  try {
    const now = Date.now();
    const hour = 60 * 60_000;
    const spans = [
      { count: counts.older, from: new Date(now - 29 * 24 * hour), to: new Date(now - hour) },
      { count: counts.recent, from: new Date(now - hour), to: new Date(now) },
    ];
    let offset = 0;
    for (const span of spans) {
      for (let done = 0; done < span.count; done += BATCH) {
        const size = Math.min(BATCH, span.count - done);
        await client.query(INSERT, [tenantId, span.from, span.to, offset + done, span.count, size, offset]);
      }
      offset += span.count;
      if (span.count > 0) onProgress(`seeded ${span.count} request records from ${span.from.toISOString()}`);
    }
    await client.query('VACUUM ANALYZE request_record, request_rollup, latency_rollup');
  } finally {
    await client.end();
  }
  return (performance.now() - started) / 1000;
}
