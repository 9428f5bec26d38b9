import { readdir, readFile } from 'node:fs/promises';
import pg from 'pg';

export const BASELINE_DATABASE = 'tm_bench_baseline';
/** The same-work baseline's writes go here: the memory schema, empty, and nobody relays its outbox. */
export const SAME_WORK_DATABASE = 'tm_bench_same_work';
const MEMORY_MIGRATIONS = new URL('../../services/memory/prisma/migrations/', import.meta.url);

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

/** A fresh, empty throwaway database (left over from a crashed run: replaced). */
async function createDatabase(database: string): Promise<string> {
  await dropDatabase(database);
  await onMaintenanceDb((c) => c.query(`CREATE DATABASE ${database}`));
  return serverUrl(database);
}

export async function dropDatabase(database: string): Promise<void> {
  await onMaintenanceDb((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
}

/** The baseline server's database: empty; it creates its one table. */
export const createBaselineDatabase = () => createDatabase(BASELINE_DATABASE);

/** The same-work server's database, with the memory service's migrations applied in order. */
export const createSameWorkDatabase = () => createMemoryDatabase(SAME_WORK_DATABASE);

/** A fresh throwaway database with the memory service's migrations applied in order. */
export async function createMemoryDatabase(database: string): Promise<string> {
  const url = await createDatabase(database);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const folders = (await readdir(MEMORY_MIGRATIONS, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    for (const folder of folders)
      await client.query(await readFile(new URL(`${folder}/migration.sql`, MEMORY_MIGRATIONS), 'utf8'));
  } finally {
    await client.end();
  }
  return url;
}

/** Both throwaway databases, dropped at the end of a run. */
export async function dropBenchDatabases(): Promise<void> {
  await dropDatabase(BASELINE_DATABASE);
  await dropDatabase(SAME_WORK_DATABASE);
}
