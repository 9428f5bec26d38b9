// No imports: the bench's telemetry seeder (tests/load/seed-telemetry.ts) uses this SQL as well.

/** What the events listing leaves out: reads of the history itself (see listEvents). */
export const HISTORY_READ = `method = 'GET' AND route = '/api/v1/infrastructure/events'`;

/** What a `stored` CTE (INSERT INTO request_record … RETURNING) returns for COUNT_STORED_RECORDS. */
export const STORED_COLUMNS = `tenant_id, method, route, coalesce(operation, method || ' ' || route) AS operation,
               deployment_version, outcome, status, error_code, latency_ms,
               date_trunc('minute', occurred_at) AS minute`;

/**
 * The rest of a statement that begins `WITH stored AS (INSERT INTO request_record … RETURNING
 * STORED_COLUMNS),`: adds the records that went in to their tenants' listed counts and to the
 * per-minute rollups (counts by outcome, latency histogram), keys in order so two batches never wait
 * on each other's rows in opposite orders.
 */
export const COUNT_STORED_RECORDS = `listed AS (
     INSERT INTO listed_record_count (tenant_id, listed)
     SELECT tenant_id, count(*) FROM stored WHERE tenant_id IS NOT NULL AND NOT (${HISTORY_READ})
      GROUP BY tenant_id ORDER BY tenant_id
     ON CONFLICT (tenant_id) DO UPDATE SET listed = listed_record_count.listed + excluded.listed),
   counted AS (
     INSERT INTO request_rollup (tenant_id, minute, operation, deployment_version, requests, accepted, errors,
                                 server_errors, timeouts, blocked, max_latency_ms)
     SELECT tenant_id, minute, operation, deployment_version, count(*), count(*) FILTER (WHERE outcome = 'accepted'),
            count(*) FILTER (WHERE outcome = 'failed'), count(*) FILTER (WHERE status >= 500),
            count(*) FILTER (WHERE error_code = 'upstream_timeout'), count(*) FILTER (WHERE outcome = 'blocked'),
            max(latency_ms)
       FROM stored WHERE tenant_id IS NOT NULL
      GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
     ON CONFLICT (tenant_id, minute, operation, deployment_version) DO UPDATE
       SET requests = request_rollup.requests + excluded.requests,
           accepted = request_rollup.accepted + excluded.accepted,
           errors = request_rollup.errors + excluded.errors,
           server_errors = request_rollup.server_errors + excluded.server_errors,
           timeouts = request_rollup.timeouts + excluded.timeouts,
           blocked = request_rollup.blocked + excluded.blocked,
           max_latency_ms = greatest(request_rollup.max_latency_ms, excluded.max_latency_ms))
   INSERT INTO latency_rollup (tenant_id, minute, operation, bucket, requests)
   SELECT tenant_id, minute, operation, telemetry_latency_bucket(latency_ms), count(*)
     FROM stored WHERE tenant_id IS NOT NULL
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
   ON CONFLICT (tenant_id, minute, operation, bucket) DO UPDATE
     SET requests = latency_rollup.requests + excluded.requests`;
