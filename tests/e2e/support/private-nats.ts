import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The launcher's nats-server (locator, flags, start-up wait) and port probe, the only copies: the
// launcher needs them before anything is installed, so they live in infra/dev, and tests import them.
import { NatsServerExited, spawnNatsServer } from '../../../infra/dev/nats-server.js';
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
  const storeDir = mkdtempSync(join(tmpdir(), 'tm-nats-'));
  let configFile: string | undefined;
  if (options.config !== undefined) {
    configFile = join(storeDir, 'server.conf');
    writeFileSync(configFile, options.config);
  }
  const { server, monitorPort } = await spawnOnFreePorts(storeDir, configFile, options.env);
  return {
    url: server.url,
    monitorUrl: `http://127.0.0.1:${monitorPort}`,
    stop: async () => {
      await server.stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

/**
 * A free port is only free when asked: with many test files starting servers side by side, another
 * process can take it before nats-server binds it, and the server exits. Then it is started again on
 * new ports (three tries); any other exit is raised at once.
 */
async function spawnOnFreePorts(
  storeDir: string,
  configFile: string | undefined,
  env?: Record<string, string>,
) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    let monitorPort = await freePort();
    while (monitorPort === port) monitorPort = await freePort();
    try {
      const server = await spawnNatsServer({ port, monitorPort, storeDir, configFile, env });
      return { server, monitorPort };
    } catch (err) {
      const portTaken = err instanceof NatsServerExited && /address already in use|bind/i.test(err.reason);
      if (!portTaken || attempt === 3) throw err;
    }
  }
}
