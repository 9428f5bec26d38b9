import pg from 'pg';
import { memoryDatabaseUrl } from './baseline-database.js';

interface TableSize {
  table: string;
  /** Heap, TOAST and free-space/visibility maps. */
  tableBytes: number;
  indexBytes: number;
  rows: number;
}

const TABLES = ['memory_record', 'memory_term', 'idempotency_entry', 'outbox_message'] as const;

/**
 * Bytes on disk of the memory tables, per row, read right after `VACUUM (ANALYZE)` so `reltuples` is
 * the row count (an exact `count(*)` of 15M postings would take longer than the measurement). The
 * tables hold every tenant's rows; at 1M records the bench's namespace is nearly all of them.
 */
export async function memoryTableSizes(env: NodeJS.ProcessEnv = process.env): Promise<TableSize[]> {
  const client = new pg.Client({ connectionString: memoryDatabaseUrl(env) });
  await client.connect();
  try {
    const { rows } = await client.query<{
      table: string;
      table_bytes: string;
      index_bytes: string;
      rows: string;
    }>(
      `SELECT c.relname AS table, pg_table_size(c.oid) AS table_bytes, pg_indexes_size(c.oid) AS index_bytes,
              CASE WHEN c.reltuples >= 0 AND c.relname IN ('memory_record', 'memory_term') THEN c.reltuples::bigint
                   ELSE NULL END AS rows
         FROM pg_class c
        WHERE c.relkind = 'r' AND c.relname = ANY($1::text[]) AND c.relnamespace = 'public'::regnamespace`,
      [TABLES],
    );
    const sizes: TableSize[] = [];
    for (const row of rows) {
      // Small tables are counted exactly; the two large ones were just analyzed.
      const count =
        row.rows ?? (await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${row.table}`)).rows[0]?.n;
      sizes.push({
        table: row.table,
        tableBytes: Number(row.table_bytes),
        indexBytes: Number(row.index_bytes),
        rows: Number(count ?? 0),
      });
    }
    return sizes.sort((a, b) => TABLES.indexOf(a.table as never) - TABLES.indexOf(b.table as never));
  } finally {
    await client.end();
  }
}

/** One line for the report: what a retained memory costs on disk, table by table. */
export function describeStorage(records: number, sizes: TableSize[]): string {
  const perRow = (t: TableSize) => (t.rows > 0 ? (t.tableBytes + t.indexBytes) / t.rows : 0);
  const allRecords = sizes.find((t) => t.table === 'memory_record')?.rows ?? 0;
  const mb = (n: number) => `${(n / 1_048_576).toFixed(0)} MB`;
  const parts = sizes.map((t) => {
    const extra =
      t.table === 'memory_term' && allRecords > 0
        ? `, ${(t.rows / allRecords).toFixed(1)} a record = ${Math.round((t.tableBytes + t.indexBytes) / allRecords)} B a record`
        : '';
    return `${t.table} ${t.rows.toLocaleString('en-US')} rows, ${mb(t.tableBytes)} + ${mb(t.indexBytes)} indexes (${Math.round(perRow(t))} B a row${extra})`;
  });
  return `Storage at ${records.toLocaleString('en-US')} records in the namespace (memory database, every tenant): ${parts.join('; ')}.`;
}
