import pg from 'pg';
import type { StackEnv } from '../global-setup.js';

/**
 * What a tenant has stored, as one hash per table: a refused request must leave every one as it was.
 * Read-only peeks at the services' databases, because no API lists everything (idempotency state,
 * supersession relations). Left out, on purpose: telemetry (it records refused requests by design),
 * billing (charges arrive off the request's path; the fuzz test checks them against the answers at
 * the end), the outbox (the relay empties it at its own pace), rate-limit counters, and columns that
 * change in the background: a key's `last_used_at`, an import's progress.
 */
const TABLES: Record<'gateway' | 'memory' | 'template', Array<{ table: string; columns: string }>> = {
  gateway: [
    { table: 'tenant', columns: 'to_jsonb(t)' },
    { table: 'app_user', columns: 'to_jsonb(t)' },
    { table: 'storage_connection', columns: 'to_jsonb(t)' },
    { table: 'api_key', columns: "to_jsonb(t) - 'last_used_at'" },
    { table: 'consent', columns: 'to_jsonb(t)' },
    { table: 'consent_event', columns: 'to_jsonb(t)' },
    { table: 'browser_session', columns: 'to_jsonb(t)' },
    { table: 'operator_token', columns: 'to_jsonb(t)' },
  ],
  memory: [
    { table: 'memory_record', columns: 'to_jsonb(t)' },
    { table: 'supersession_relation', columns: 'to_jsonb(t)' },
    { table: 'idempotency_entry', columns: 'to_jsonb(t)' },
    { table: 'namespace_deletion', columns: 'to_jsonb(t)' },
  ],
  template: [
    { table: 'template', columns: 'to_jsonb(t)' },
    { table: 'template_memory', columns: 'to_jsonb(t)' },
    { table: 'memory_request', columns: 'to_jsonb(t)' },
    { table: 'import_job', columns: "jsonb_build_object('id', t.id)" },
  ],
};

/** One statement per database: `table: md5` for each of its tables, rows ordered by their text. */
function footprintQuery(database: keyof typeof TABLES): string {
  return TABLES[database]
    .map(({ table, columns }) => {
      const tenantColumn = table === 'tenant' ? 'id' : 'tenant_id';
      return `SELECT '${table}' AS name, md5(coalesce(string_agg((${columns})::text, '|' ORDER BY (${columns})::text), '')) AS hash
        FROM ${table} t WHERE t.${tenantColumn}::text = $1`;
    })
    .join(' UNION ALL ');
}

export type Footprint = Record<string, string>;

/** Connections held for a whole fuzz file: one footprint is three statements, a few milliseconds. */
export async function openFootprints(env: StackEnv) {
  const urls = { gateway: env.gatewayDbUrl, memory: env.memoryDbUrl, template: env.templateDbUrl };
  const clients = await Promise.all(
    Object.entries(urls).map(async ([database, url]) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return { sql: footprintQuery(database as keyof typeof TABLES), client };
    }),
  );
  return {
    async of(tenantId: string): Promise<Footprint> {
      const results = await Promise.all(
        clients.map(({ client, sql }) => client.query<{ name: string; hash: string }>(sql, [tenantId])),
      );
      return Object.fromEntries(results.flatMap((r) => r.rows.map((row) => [row.name, row.hash])));
    },
    close: () => Promise.all(clients.map(({ client }) => client.end())),
  };
}
export type Footprints = Awaited<ReturnType<typeof openFootprints>>;
