import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { runCommand } from './run-command.js';

/** What decides how a system package (nats-server, Chromium) can be installed on this machine. */
export interface InstallHost {
  platform: NodeJS.Platform;
  isRoot: boolean;
  /** True when `program` is on PATH. */
  has: (program: string) => boolean;
  /** True when sudo runs without asking for a password (`sudo -n true`). */
  passwordlessSudo: () => boolean;
}

export interface InstallPlan {
  /** Commands in order; each one an argv. */
  steps: string[][];
  /** Prefix for a privileged command (sudo -n, or nothing as root). */
  privileged: string[];
}

/** A package's names: Debian's (one or several), and Homebrew's (`--cask` for an application). */
export interface SystemPackage {
  apt: string | string[];
  brew: string[];
}

export const NATS_SERVER: SystemPackage = { apt: 'nats-server', brew: ['nats-server'] };
/** For the console's browser tests (tests/e2e/support/browser.ts). */
export const CHROMIUM: SystemPackage = { apt: 'chromium', brew: ['--cask', 'chromium'] };

/**
 * How to install a package here without asking anyone anything, or undefined when it cannot be done:
 * Debian/Ubuntu's package (apt-get, as root or with passwordless sudo; `apt-get update` first, since a
 * fresh machine's package lists may be empty), Homebrew on macOS. Anything else is left to the user.
 */
export function installPlan(host: InstallHost, pkg: SystemPackage): InstallPlan | undefined {
  if (host.platform === 'darwin' && host.has('brew')) {
    if (pkg.brew.length === 0) return undefined; // no formula: the caller says how to get it instead
    return { steps: [['brew', 'install', ...pkg.brew]], privileged: [] };
  }
  if (host.platform !== 'linux' || !host.has('apt-get')) return undefined;
  const privileged = host.isRoot
    ? []
    : host.has('sudo') && host.passwordlessSudo()
      ? ['sudo', '-n']
      : undefined;
  if (!privileged) return undefined;
  return {
    steps: [
      [...privileged, 'apt-get', 'update'],
      [
        ...privileged,
        'env',
        'DEBIAN_FRONTEND=noninteractive',
        'apt-get',
        'install',
        '-y',
        ...[pkg.apt].flat(),
      ],
    ],
    privileged,
  };
}

export function onPath(program: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, program))
    .find(isExecutable);
}

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export const thisHost: InstallHost = {
  platform: process.platform,
  isRoot: process.getuid?.() === 0,
  has: (program) => onPath(program) !== undefined,
  passwordlessSudo: () => spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0,
};

/** Run the plan's steps; their output is shown only if one fails (then it throws). */
export async function runInstallPlan(plan: InstallPlan, cwd: string): Promise<void> {
  for (const [command, ...args] of plan.steps) {
    if (!command) continue;
    await runCommand(command, args, { cwd, env: process.env, label: 'install', quiet: true });
  }
}

/**
 * Debian's package also installs a system service that systemd starts at once on 4222, from a config
 * without JetStream, which the services need: stop and disable it, so the launcher's own nats-server
 * (with JetStream, its store in .data/nats) can have the port. Only called when the port was free before.
 */
export async function stopPackagedService(plan: InstallPlan, cwd: string): Promise<boolean> {
  if (!onPath('systemctl')) return false;
  const [command, ...args] = [...plan.privileged, 'systemctl', 'disable', '--now', 'nats-server'];
  if (!command) return false;
  await runCommand(command, args, { cwd, env: process.env, label: 'install', quiet: true });
  return true;
}
