import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CANDIDATES = [
  'nats-server',
  '/usr/sbin/nats-server',
  '/usr/local/bin/nats-server',
  '/usr/bin/nats-server',
];

export function findNatsServer(): string | undefined {
  for (const c of CANDIDATES) {
    if (
      c.includes('/')
        ? existsSync(c)
        : (process.env.PATH ?? '').split(':').some((d) => existsSync(join(d, c)))
    )
      return c;
  }
  return undefined;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = tcpConnect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nats-server did not listen on ${port}`);
}

/**
 * A throwaway JetStream-enabled nats-server, so test streams never meet a dev stack's. Its monitoring
 * port is on too (`monitorUrl`): `/connz?subs=detail` counts the messages each connection's
 * subscriptions received, which is how a test tells which instance of a queue group took requests.
 */
export interface PrivateNatsOptions {
  /** Server configuration text (e.g. `include` of infra/nats/service-permissions.conf), beside the flags. */
  config?: string;
  /** Environment of the server process: the passwords the configuration refers to as `$VARIABLE`. */
  env?: Record<string, string>;
}

export async function startPrivateNats(options: PrivateNatsOptions = {}): Promise<{
  url: string;
  monitorUrl: string;
  stop: () => Promise<void>;
}> {
  const binary = findNatsServer();
  if (!binary) {
    throw new Error('nats-server not found: install it (apt-get install nats-server) or put it on PATH');
  }
  const port = await freePort();
  const monitorPort = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'tm-nats-'));
  const configArgs: string[] = [];
  if (options.config !== undefined) {
    const configFile = join(storeDir, 'server.conf');
    writeFileSync(configFile, options.config);
    configArgs.push('-c', configFile);
  }
  const child: ChildProcess = spawn(
    binary,
    [...configArgs, '-js', '-a', '127.0.0.1', '-p', String(port), '-m', String(monitorPort), '-sd', storeDir],
    {
      stdio: 'ignore',
      env: { ...process.env, ...options.env },
    },
  );
  await waitForPort(port, 10_000);
  return {
    url: `nats://127.0.0.1:${port}`,
    monitorUrl: `http://127.0.0.1:${monitorPort}`,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r).once('error', r));
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
