import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The launcher's nats-server locator and port probes, the only copies: the launcher needs them
// before anything is installed, so they live in infra/dev, and tests import them from there.
import { findNatsServer } from '../../../infra/dev/nats-server.js';
import { canConnect, freePort } from '../../../infra/dev/tcp-probe.js';
import { waitFor } from '../../../infra/dev/wait-for.js';

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
  // infra/dev's wait, not the tests' `eventually`: this runs in the global setup too, outside a test.
  await waitFor(`the private nats-server to listen on ${port}`, () => canConnect('127.0.0.1', port), {
    timeoutMs: 10_000,
    intervalMs: 50,
  });
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
