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

/** Apply a service's migrations exactly as deployments do: `prisma migrate deploy` (the service's own CLI). */
export type Service = 'memory' | 'billing' | 'telemetry' | 'template' | 'gateway';

export async function migrate(service: Service, url: string): Promise<void> {
  const cwd = join(root, 'services', service);
  await run(join(cwd, 'node_modules', '.bin', 'prisma'), ['migrate', 'deploy'], {
    cwd,
    env: { ...process.env, [`${service.toUpperCase()}_DATABASE_URL`]: url, CHECKPOINT_DISABLE: '1' },
  });
}
