import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPgBinDir, PATRONI_PACKAGES } from '../patroni-tools.js';
import { CHROMIUM, type InstallHost, installPlan, NATS_SERVER } from '../system-package.js';

const host = (overrides: Partial<InstallHost> & { programs?: string[] }): InstallHost => {
  const { programs = [], ...rest } = overrides;
  return {
    platform: 'linux',
    isRoot: false,
    has: (program) => programs.includes(program),
    passwordlessSudo: () => false,
    ...rest,
  };
};
const aptInstall = ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', 'nats-server'];

describe('installPlan', () => {
  it('when run as root on Debian or Ubuntu, then apt-get updates its lists and installs nats-server', () => {
    expect(installPlan(host({ isRoot: true, programs: ['apt-get'] }), NATS_SERVER)).toEqual({
      steps: [['apt-get', 'update'], aptInstall],
      privileged: [],
    });
  });

  it('when a user with passwordless sudo runs it on Debian or Ubuntu, then the same through sudo -n', () => {
    const plan = installPlan(
      host({ programs: ['apt-get', 'sudo'], passwordlessSudo: () => true }),
      NATS_SERVER,
    );

    expect(plan).toEqual({
      steps: [
        ['sudo', '-n', 'apt-get', 'update'],
        ['sudo', '-n', ...aptInstall],
      ],
      privileged: ['sudo', '-n'],
    });
  });

  it('when sudo would ask for a password, then nothing is installed (the user is told how instead)', () => {
    expect(installPlan(host({ programs: ['apt-get', 'sudo'] }), NATS_SERVER)).toBeUndefined();
  });

  it('when on macOS with Homebrew, then brew installs it, as the user', () => {
    expect(installPlan(host({ platform: 'darwin', programs: ['brew'] }), NATS_SERVER)).toEqual({
      steps: [['brew', 'install', 'nats-server']],
      privileged: [],
    });
  });

  it('when neither apt-get nor Homebrew is there, then nothing is installed', () => {
    expect(installPlan(host({ isRoot: true, programs: ['dnf'] }), NATS_SERVER)).toBeUndefined();
    expect(installPlan(host({ platform: 'darwin', isRoot: true }), NATS_SERVER)).toBeUndefined();
    expect(
      installPlan(host({ platform: 'win32', isRoot: true, programs: ['apt-get'] }), NATS_SERVER),
    ).toBeUndefined();
  });

  it("when the package is Chromium, then Debian's chromium, or Homebrew's cask", () => {
    expect(installPlan(host({ isRoot: true, programs: ['apt-get'] }), CHROMIUM)?.steps.at(-1)).toEqual([
      ...aptInstall.slice(0, -1),
      'chromium',
    ]);
    expect(installPlan(host({ platform: 'darwin', programs: ['brew'] }), CHROMIUM)?.steps).toEqual([
      ['brew', 'install', '--cask', 'chromium'],
    ]);
  });

  it("when the package is several of Debian's (the Python SDK's test tools), then one apt-get install names them all", () => {
    const python = { apt: ['python3-pytest', 'python3-httpx'], brew: [] };

    expect(installPlan(host({ isRoot: true, programs: ['apt-get'] }), python)?.steps.at(-1)).toEqual([
      ...aptInstall.slice(0, -1),
      'python3-pytest',
      'python3-httpx',
    ]);
  });

  it('when a package has no Homebrew formula (Patroni), then nothing is installed on macOS', () => {
    expect(installPlan(host({ platform: 'darwin', programs: ['brew'] }), PATRONI_PACKAGES)).toBeUndefined();
  });
});

describe('findPgBinDir', () => {
  const binDir = (programs: string[]) => {
    const dir = mkdtempSync(join(tmpdir(), 'pg-bin-'));
    for (const program of programs) writeFileSync(join(dir, program), '#!/bin/sh\n', { mode: 0o755 });
    return dir;
  };
  const all = ['postgres', 'initdb', 'pg_ctl', 'pg_basebackup', 'pg_rewind'];

  it('when PATRONI_PG_BIN_DIR holds every program Patroni runs, then that directory', () => {
    const dir = binDir(all);
    expect(findPgBinDir({ PATRONI_PG_BIN_DIR: dir })).toBe(dir);
  });

  it('when the directory lacks pg_rewind (as the embedded PostgreSQL does), then none', () => {
    expect(
      findPgBinDir({ PATRONI_PG_BIN_DIR: binDir(all.filter((p) => p !== 'pg_rewind')) }),
    ).toBeUndefined();
  });
});
