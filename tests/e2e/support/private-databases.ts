import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Base server URL for tests: TEST_PG_URL, else the machine's default PostgreSQL. */
export const pgServerUrl = () => process.env.TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(database: string): string {
  const url = new URL(pgServerUrl());
  url.pathname = `/${database}`;
  return url.toString();
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: pgServerUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export const createDatabase = (name: string) => admin((c) => c.query(`CREATE DATABASE "${name}"`));
export const dropDatabase = (name: string) =>
  admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));

/**
 * A copy of a migrated template database, as trigger.dev's tests make theirs: a file copy in
 * PostgreSQL, no migrations to replay. The template must have no open connections while it is copied,
 * so nothing but `migrate` ever connects to one.
 */
export const cloneDatabase = (name: string, template: string) =>
  admin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));

/** Every database whose name starts with `prefix`: what a run left behind, for its teardown. */
export const databasesStartingWith = (prefix: string) =>
  admin(async (c) => {
    const { rows } = await c.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`,
      [prefix],
    );
    return rows.map((r) => r.datname);
  });

export const SERVICES = ['memory', 'billing', 'telemetry', 'template', 'webhooks', 'gateway'] as const;
export type Service = (typeof SERVICES)[number];

/** The run's migrated template for a service; every database of the run is cloned from one of these. */
export const templateDatabase = (runId: string, service: Service) => `tmt_${runId}_template_${service}`;

/** Apply a service's migrations exactly as deployments do: `prisma migrate deploy` (the service's own CLI). */

export async function migrate(service: Service, url: string): Promise<void> {
  const cwd = join(root, 'services', service);
  await run(join(cwd, 'node_modules', '.bin', 'prisma'), ['migrate', 'deploy'], {
    cwd,
    env: { ...process.env, [`${service.toUpperCase()}_DATABASE_URL`]: url, CHECKPOINT_DISABLE: '1' },
  });
}
