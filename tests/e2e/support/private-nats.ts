import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The launcher's nats-server (locator, flags, start-up wait) and port probe, the only copies: the
// launcher needs them before anything is installed, so they live in infra/dev, and tests import them.
import { spawnNatsServer } from '../../../infra/dev/nats-server.js';
import { freePort } from '../../../infra/dev/tcp-probe.js';

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
  const port = await freePort();
  const monitorPort = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'tm-nats-'));
  let configFile: string | undefined;
  if (options.config !== undefined) {
    configFile = join(storeDir, 'server.conf');
    writeFileSync(configFile, options.config);
  }
  const server = await spawnNatsServer({ port, monitorPort, storeDir, configFile, env: options.env });
  return {
    url: server.url,
    monitorUrl: `http://127.0.0.1:${monitorPort}`,
    stop: async () => {
      await server.stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
