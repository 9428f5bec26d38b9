import type { EventsFilter, RequestEvent, RequestRecord } from '@tm/contracts';
import { prepared, type SqlRunner } from '@tm/kit';
import { COUNT_STORED_RECORDS, HISTORY_READ, STORED_COLUMNS } from './count-stored-records.js';

/**
 * A batch of records in one statement; a record already stored (a redelivered batch) is skipped. The
 * records that did go in are added, in the same statement, to their tenants' listed counts and to the
 * per-minute rollups metrics read (counts by outcome, latency histogram), keys in order so two
 * batches never wait on each other's rows in opposite orders.
 */
const INSERT_RECORDS = prepared(
  'telemetry_insert_records',
  `WITH stored AS (
     INSERT INTO request_record (record_id, request_id, tenant_id, method, route, operation, status, outcome, state,
                                 error_code, latency_ms, units, billing_state, namespace_ref, deployment_version,
                                 gateway_instance, occurred_at, key_id, user_id, item_counts)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[],
                          $8::text[], $9::text[], $10::text[], $11::float8[], $12::int[], $13::text[], $14::text[],
                          $15::text[], $16::text[], $17::timestamptz[], $18::text[], $19::text[], $20::jsonb[])
     ON CONFLICT (record_id) DO NOTHING
     RETURNING ${STORED_COLUMNS}),
   ${COUNT_STORED_RECORDS}`,
);

export async function insertRecords(
  run: SqlRunner,
  records: Array<{ record: RequestRecord; gatewayInstance: string }>,
): Promise<void> {
  const seen = new Set<string>();
  const batch = records.filter((r) => !seen.has(r.record.record_id) && seen.add(r.record.record_id));
  if (batch.length === 0) return;
  const column = <T>(pick: (r: RequestRecord) => T) => batch.map((r) => pick(r.record));
  await run(INSERT_RECORDS, [
    column((r) => r.record_id),
    column((r) => r.request_id),
    column((r) => r.tenant_id),
    column((r) => r.method),
    column((r) => r.route),
    column((r) => r.operation),
    column((r) => r.status),
    column((r) => r.outcome),
    column((r) => r.state),
    column((r) => r.error_code),
    column((r) => r.latency_ms),
    column((r) => r.units),
    column((r) => r.billing_state),
    column((r) => r.namespace_ref),
    column((r) => r.deployment_version),
    batch.map((r) => r.gatewayInstance),
    column((r) => r.occurred_at),
    column((r) => r.key_id),
    column((r) => r.user_id),
    column((r) => (r.item_counts ? JSON.stringify(r.item_counts) : null)),
  ]);
}

export async function insertDropReport(
  run: SqlRunner,
  report: { messageId: string; gatewayInstance: string; dropped: number },
): Promise<void> {
  await run(
    prepared(
      'telemetry_insert_drop_report',
      `INSERT INTO dropped_record_report (message_id, gateway_instance, dropped) VALUES ($1, $2, $3)
       ON CONFLICT (message_id) DO NOTHING`,
    ),
    [report.messageId, report.gatewayInstance, report.dropped],
  );
}

export async function insertDeadLetter(
  run: SqlRunner,
  letter: { streamSequence: number; reason: string; deadLetteredAt: string },
): Promise<void> {
  await run(
    `INSERT INTO usage_dead_letter (stream_sequence, reason, dead_lettered_at) VALUES ($1, $2, $3)
     ON CONFLICT (stream_sequence) DO NOTHING`,
    [letter.streamSequence, letter.reason, letter.deadLetteredAt],
  );
}

const EVENT_COLUMNS = `request_id, to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS occurred_at,
  key_id, user_id, method, route, operation, status, outcome, state, error_code, latency_ms, units, billing_state, deployment_version,
  item_counts`;

/**
 * Reads of the history itself are left out of the listing (they stay in metrics and the export): a
 * client paging through its history would otherwise push its own pages along with every read.
 */
const NOT_A_HISTORY_READ = `NOT (${HISTORY_READ})`;

/** The events listing's filter as SQL conditions, numbered after `first - 1` parameters. */
function filterConditions(filter: EventsFilter, first: number): { sql: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (condition: (n: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(`$${first + params.length - 1}`));
  };
  if (filter.operation !== null) add((n) => `request_record.operation = ${n}::text`, filter.operation);
  if (filter.outcome !== null) add((n) => `request_record.outcome = ${n}::text`, filter.outcome);
  if (filter.status !== null) add((n) => `request_record.status = ${n}::int`, filter.status);
  // On the listing index's own column: a time range bounds the scan, not only the rows kept.
  if (filter.from !== null) add((n) => `request_record.occurred_at >= ${n}::timestamptz`, filter.from);
  if (filter.to !== null) add((n) => `request_record.occurred_at < ${n}::timestamptz`, filter.to);
  return { sql: conditions.map((c) => ` AND ${c}`).join(''), params };
}

/**
 * Newest first; ties on the same millisecond broken by record id, so pages never overlap. The sort
 * names the table's columns: the bare names are the formatted output columns, a text sort no index
 * serves (2 s for the first page at 1M records, 5 ms by the index). The total is
 * the tenant's kept count, not a count of the history (O(1) however long the history is). One row
 * past the page is read, to tell whether there is another; with `before`, the page is a keyset page.
 * Filters are conditions on the same index scan (only present ones are in the statement, so each
 * plan is the plain one plus its conditions): the time range narrows the scan itself, the others
 * skip rows along it (measurements in docs/decisions/console.md, "Console: first steps, layout, server-side event filters").
 */
export async function listEvents(
  run: SqlRunner,
  tenantId: string,
  page: {
    limit: number;
    offset: number;
    before: { occurred_at: string; record_id: string } | null;
    filter: EventsFilter;
  },
): Promise<{ rows: Array<RequestEvent & { record_id: string }>; total: number }> {
  const where = filterConditions(page.filter, page.before ? 5 : 4);
  const [rows, count] = await Promise.all([
    page.before
      ? run<RequestEvent & { record_id: string }>(
          `SELECT ${EVENT_COLUMNS}, record_id::text FROM request_record
            WHERE tenant_id = $1 AND ${NOT_A_HISTORY_READ}
              AND (request_record.occurred_at, request_record.record_id) < ($3::timestamptz, $4::uuid)${where.sql}
            ORDER BY request_record.occurred_at DESC, request_record.record_id DESC LIMIT $2 + 1`,
          [tenantId, page.limit, page.before.occurred_at, page.before.record_id, ...where.params],
        )
      : run<RequestEvent & { record_id: string }>(
          `SELECT ${EVENT_COLUMNS}, record_id::text FROM request_record
            WHERE tenant_id = $1 AND ${NOT_A_HISTORY_READ}${where.sql}
            ORDER BY request_record.occurred_at DESC, request_record.record_id DESC LIMIT $2 + 1 OFFSET $3`,
          [tenantId, page.limit, page.offset, ...where.params],
        ),
    run<{ total: number }>(
      prepared(
        'telemetry_listed_total',
        'SELECT listed::int AS total FROM listed_record_count WHERE tenant_id = $1',
      ),
      [tenantId],
    ),
  ]);
  return { rows, total: count[0]?.total ?? 0 };
}

/**
 * Delete up to `limit` records older than `days`, and take them off their tenants' listed counts in
 * the same statement. Returns how many went.
 */
export async function pruneRecordsBefore(run: SqlRunner, days: number, limit: number): Promise<number> {
  const [row] = await run<{ n: number }>(
    `WITH gone AS (
       DELETE FROM request_record WHERE record_id IN (
         SELECT record_id FROM request_record WHERE occurred_at < now() - make_interval(days => $1) LIMIT $2)
       RETURNING tenant_id, method, route),
     listed AS (
       SELECT tenant_id, count(*) AS n FROM gone WHERE tenant_id IS NOT NULL AND NOT (${HISTORY_READ})
        GROUP BY tenant_id),
     counted AS (
       UPDATE listed_record_count c SET listed = c.listed - listed.n FROM listed
        WHERE c.tenant_id = listed.tenant_id)
     SELECT count(*)::int AS n FROM gone`,
    [days, limit],
  );
  return row?.n ?? 0;
}

/**
 * The export's history, oldest first by (occurred_at, record_id) keyset, optionally only the records
 * of some namespaces (by digest).
 */
export async function historyPage(
  run: SqlRunner,
  q: {
    tenantId: string;
    namespaceRefs: string[] | null;
    after: { occurredAt: string; recordId: string } | null;
    limit: number;
  },
): Promise<Array<RequestEvent & { record_id: string }>> {
  return run(
    `SELECT ${EVENT_COLUMNS}, record_id::text FROM request_record
      WHERE tenant_id = $1
        AND ($2::text[] IS NULL OR namespace_ref = ANY($2))
        AND ($3::timestamptz IS NULL OR (occurred_at, record_id) > ($3::timestamptz, $4::uuid))
      ORDER BY request_record.occurred_at, request_record.record_id LIMIT $5`,
    [q.tenantId, q.namespaceRefs, q.after?.occurredAt ?? null, q.after?.recordId ?? null, q.limit],
  );
}
