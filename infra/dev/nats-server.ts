import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { type SupervisedProcess, startSupervised } from './supervised-process.js';
import { isExecutable, onPath } from './system-package.js';
import { canConnect } from './tcp-probe.js';
import { waitFor } from './wait-for.js';

/** Where Debian's `nats-server` package puts the binary, which is not on a normal user's PATH. */
const DEBIAN_PATH = '/usr/sbin/nats-server';

export const NATS_INSTALL_HINT = [
  'Install nats-server (2.9 or newer), then run this again:',
  '  Debian/Ubuntu:  sudo apt-get install -y nats-server',
  '  macOS:          brew install nats-server',
  '  elsewhere:      a release binary from https://github.com/nats-io/nats-server/releases on PATH',
].join('\n');

/** `nats-server` from PATH, else the Debian location; undefined when neither exists. */
export function findNatsServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return onPath('nats-server', env) ?? (isExecutable(DEBIAN_PATH) ? DEBIAN_PATH : undefined);
}

/** `findNatsServer`, or an error that says how to install it (for code that cannot install it itself). */
export function requireNatsServer(): string {
  const binary = findNatsServer();
  if (!binary) throw new Error(`nats-server not found.\n${NATS_INSTALL_HINT}`);
  return binary;
}

export interface NatsServerOptions {
  port: number;
  /** JetStream's store (the server keeps it in a `jetstream` folder inside). */
  storeDir: string;
  /** The HTTP monitoring port (`/varz`, `/connz`); off without it. */
  monitorPort?: number;
  /** A configuration file (users, JetStream limits), read first: the flags below win over it. */
  configFile?: string;
  /** Its name among a cluster's nodes: JetStream's replicas and stream leaders are named by it. */
  serverName?: string;
  /** One node of a cluster on this machine: routes to the other nodes' cluster ports, on loopback. */
  cluster?: { name: string; port: number; routes: readonly number[] };
}

/** The flags of every local nats-server here: JetStream on, listening on loopback only. */
export function natsServerArgs({
  port,
  storeDir,
  monitorPort,
  configFile,
  serverName,
  cluster,
}: NatsServerOptions): string[] {
  return [
    ...(configFile === undefined ? [] : ['-c', configFile]),
    '-js',
    '-a',
    '127.0.0.1',
    '-p',
    String(port),
    ...(monitorPort === undefined ? [] : ['-m', String(monitorPort)]),
    '-sd',
    storeDir,
    ...(serverName === undefined ? [] : ['-n', serverName]),
    ...(cluster === undefined
      ? []
      : [
          '--cluster_name',
          cluster.name,
          '--cluster',
          `nats://127.0.0.1:${cluster.port}`,
          '--routes',
          cluster.routes.map((p) => `nats://127.0.0.1:${p}`).join(','),
        ]),
  ];
}

/** The launcher's nats-server with JetStream, supervised with the services. */
export function startNatsServer(
  binary: string,
  port: number,
  storeDir: string,
  cwd: string,
): SupervisedProcess {
  return startSupervised('nats', binary, natsServerArgs({ port, storeDir }), { cwd, env: process.env });
}

/** The server stopped before it listened; `reason` is its last line on stderr. */
export class NatsServerExited extends Error {
  constructor(
    readonly code: number | string | null,
    readonly reason: string,
  ) {
    super(`nats-server exited (${code}) before it listened${reason ? `: ${reason}` : ''}`);
  }
}

export interface SpawnedNatsServer {
  url: string;
  child: ChildProcess;
  /** SIGTERM (it closes its clients and flushes its store), SIGKILL after 10 s; resolves once it exited. */
  stop(): Promise<void>;
  /** SIGKILL: nothing flushed, nobody told, as when its machine is lost; resolves once it exited. */
  kill(): Promise<void>;
}

/**
 * A nats-server of a test's or the fault suite's own (not supervised: its owner stops it), resolved
 * once it accepts connections. Started again with the same options, it comes back on the same port
 * with the same store. `env` is added to this process's (passwords a configuration names as
 * `$VARIABLE`); its output goes to `logFile` when given, else nowhere.
 */
export async function spawnNatsServer(
  options: NatsServerOptions & { env?: Record<string, string>; logFile?: string },
): Promise<SpawnedNatsServer> {
  const binary = requireNatsServer();
  const log = options.logFile === undefined ? undefined : createWriteStream(options.logFile, { flags: 'a' });
  const child = spawn(binary, natsServerArgs(options), {
    stdio: ['ignore', log ? 'pipe' : 'ignore', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  // The end of stderr, kept for the error when the server exits before it listens (a port taken, a
  // bad configuration); without it that error could only say "exited (1)".
  let lastError = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    lastError = (lastError + chunk.toString('utf8')).slice(-500);
  });
  if (log) {
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.once('close', () => log.end());
  }
  let failed: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (err) => {
      failed = err;
      resolve();
    });
  });
  const stop = async () => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.kill('SIGTERM');
    await exited;
    clearTimeout(killer);
  };
  const kill = async () => {
    child.kill('SIGKILL');
    await exited;
  };
  try {
    await waitFor(
      `nats-server to listen on ${options.port}`,
      async () => {
        if (failed) throw new Error(`cannot run ${binary}: ${failed.message}`);
        if (child.exitCode !== null || child.signalCode !== null)
          throw new NatsServerExited(
            child.exitCode ?? child.signalCode,
            lastError.trim().split('\n').pop() ?? '',
          );
        return canConnect('127.0.0.1', options.port);
      },
      { timeoutMs: 15_000, intervalMs: 25 },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `nats://127.0.0.1:${options.port}`, child, stop, kill };
}
