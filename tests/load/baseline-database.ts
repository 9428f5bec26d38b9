import pg from 'pg';

export const BASELINE_DATABASE = 'tm_bench_baseline';

/**
 * The PostgreSQL server the stack writes to, as a URL for `database`: BENCH_PG_URL if set, else the
 * memory service's MEMORY_DATABASE_URL, else the PG* variables the launcher reads (local defaults).
 */
export function serverUrl(database: string, env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.BENCH_PG_URL || env.MEMORY_DATABASE_URL;
  const url = configured
    ? new URL(configured)
    : new URL(`postgresql://${encodeURIComponent(env.PGUSER || 'postgres')}@127.0.0.1`);
  if (!configured) {
    if (env.PGPASSWORD) url.password = encodeURIComponent(env.PGPASSWORD);
    const host = env.PGHOST || '127.0.0.1';
    url.hostname = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
    url.port = env.PGPORT || '5432';
  }
  url.pathname = `/${database}`;
  return url.toString();
}

/** The memory service's own database, on the server above (bench seeding and vacuuming work in it). */
export function memoryDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const database = new URL(env.MEMORY_DATABASE_URL || 'postgresql://x/tm_memory').pathname.slice(1);
  return serverUrl(database, env);
}

async function onMaintenanceDb<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl('postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty throwaway database for the baseline server (left over from a crashed run: replaced). */
export async function createBaselineDatabase(): Promise<string> {
  await dropBaselineDatabase();
  await onMaintenanceDb((c) => c.query(`CREATE DATABASE ${BASELINE_DATABASE}`));
  return serverUrl(BASELINE_DATABASE);
}

export async function dropBaselineDatabase(): Promise<void> {
  await onMaintenanceDb((c) => c.query(`DROP DATABASE IF EXISTS ${BASELINE_DATABASE} WITH (FORCE)`));
}
