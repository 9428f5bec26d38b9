import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import type { ServiceSpec } from './dev-settings.js';
import { runCommand } from './run-command.js';

/**
 * Apply the service's pending migrations with `prisma migrate deploy`, run in the service's folder so
 * its prisma.config.ts (JS engine, pg adapter) applies: the same as
 * `pnpm --filter @tm/<service> exec prisma migrate deploy` without a pnpm process in between.
 * Skipped when every migration folder is already recorded as applied, because the CLI idles about
 * 10 s after its work before it exits.
 */
export async function migrateService(
  service: ServiceSpec,
  env: NodeJS.ProcessEnv,
): Promise<'applied' | 'up to date'> {
  if (!(await hasPendingMigrations(service))) return 'up to date';
  await runCommand(join(service.dir, 'node_modules', '.bin', 'prisma'), ['migrate', 'deploy'], {
    cwd: service.dir,
    env: { ...env, [service.databaseVar]: service.databaseUrl },
    label: `migrate:${service.name}`,
    quiet: true,
  });
  return 'applied';
}

async function hasPendingMigrations(service: ServiceSpec): Promise<boolean> {
  const entries = await readdir(join(service.dir, 'prisma', 'migrations'), { withFileTypes: true });
  const local = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  const client = new pg.Client({ connectionString: service.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ migration_name: string }>(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const applied = new Set(rows.map((row) => row.migration_name));
    return local.some((name) => !applied.has(name));
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return true; // no migrations table yet
    throw err;
  } finally {
    await client.end();
  }
}
