import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  installPlan,
  isExecutable,
  onPath,
  runInstallPlan,
  type SystemPackage,
  thisHost,
} from './system-package.js';

/**
 * What a PostgreSQL failover cluster on one machine needs (the fault suite's Patroni rows): Patroni,
 * etcd as its store, HAProxy in front of whichever node is primary, and a PostgreSQL whose binaries
 * include pg_basebackup and pg_rewind (a replica is made by the first, an old primary rejoins by the
 * second). Debian's packages; Homebrew has no Patroni formula.
 */
export const PATRONI_PACKAGES: SystemPackage = {
  apt: ['patroni', 'etcd-server', 'etcd-client', 'haproxy'],
  brew: [],
};
const POSTGRES_PACKAGE: SystemPackage = { apt: 'postgresql', brew: [] };

export interface PatroniTools {
  patroni: string;
  etcd: string;
  haproxy: string;
  /** PostgreSQL's bin directory (Patroni's `bin_dir`). */
  pgBinDir: string;
}

/** Where Debian installs what is not on a normal user's PATH. */
const find = (program: string, ...fallbacks: string[]) =>
  onPath(program) ?? fallbacks.find((file) => isExecutable(file));

const PG_PROGRAMS = ['postgres', 'initdb', 'pg_ctl', 'pg_basebackup', 'pg_rewind'];

/**
 * PATRONI_PG_BIN_DIR if set, else the newest Debian PostgreSQL (/usr/lib/postgresql/<major>/bin) that
 * has every program Patroni runs. Not the embedded PostgreSQL of `npm start`: it ships no pg_basebackup.
 */
export function findPgBinDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const complete = (dir: string) => PG_PROGRAMS.every((p) => isExecutable(join(dir, p)));
  if (env.PATRONI_PG_BIN_DIR) return complete(env.PATRONI_PG_BIN_DIR) ? env.PATRONI_PG_BIN_DIR : undefined;
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  return readdirSync(base)
    .filter((major) => /^\d+$/.test(major))
    .sort((a, b) => Number(b) - Number(a))
    .map((major) => join(base, major, 'bin'))
    .find(complete);
}

export function findPatroniTools(): PatroniTools | undefined {
  const patroni = find('patroni', '/usr/bin/patroni');
  const etcd = find('etcd', '/usr/bin/etcd');
  const haproxy = find('haproxy', '/usr/sbin/haproxy');
  const pgBinDir = findPgBinDir();
  return patroni && etcd && haproxy && pgBinDir ? { patroni, etcd, haproxy, pgBinDir } : undefined;
}

export const PATRONI_INSTALL_HINT =
  'the PostgreSQL failover rows need Patroni, etcd, HAProxy and PostgreSQL with pg_rewind: ' +
  '`apt-get install patroni etcd-server etcd-client haproxy postgresql` (Debian/Ubuntu), ' +
  'or PATRONI_PG_BIN_DIR=<a PostgreSQL bin directory> with the others on PATH';

/**
 * The tools, installed first where nobody has to be asked (as root or with passwordless sudo on
 * Debian/Ubuntu); an error that says how to get them otherwise.
 */
export async function ensurePatroniTools(
  say: (line: string) => void = () => undefined,
): Promise<PatroniTools> {
  const found = findPatroniTools();
  if (found) return found;
  const packages: SystemPackage = {
    apt: [...[PATRONI_PACKAGES.apt].flat(), ...(findPgBinDir() ? [] : [POSTGRES_PACKAGE.apt].flat())],
    brew: [],
  };
  const plan = installPlan(thisHost, packages);
  if (plan) {
    say(`installing Patroni, etcd and HAProxy (${plan.steps.map((s) => s.join(' ')).join('; ')})...`);
    await runInstallPlan(plan, process.cwd());
  }
  const tools = findPatroniTools();
  if (!tools) throw new Error(PATRONI_INSTALL_HINT);
  return tools;
}
