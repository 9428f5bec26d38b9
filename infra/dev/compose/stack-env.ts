import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname } from 'node:path';

/** The secrets docker-compose.yml requires (`${…:?}`), generated once per checkout unless set in the shell. */
export const REQUIRED_SECRETS = ['GATEWAY_SECRET_KEY', 'IMPORT_SECRET_KEY', 'WEBHOOKS_SECRET_KEY'] as const;

/** Host ports docker-compose.yml publishes, with its defaults (the dev launcher's ports). */
export const PUBLISHED_PORTS = {
  GATEWAY_PORT: 8080,
  POSTGRES_PORT: 5432,
  NATS_PORT: 4222,
  NATS_MONITOR_PORT: 8222,
} as const;

/**
 * Secrets for the stack: the shell's, else the ones kept in `file` (mode 600), else new ones written
 * there. Kept, not made per run: the gateway encrypts storage secrets with its key, so a restarted stack
 * on the same volume needs the same one.
 */
export function stackSecrets(file: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const kept: Record<string, string> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  let changed = false;
  const secrets: Record<string, string> = {};
  for (const name of REQUIRED_SECRETS) {
    const value = env[name] || kept[name];
    if (value) secrets[name] = value;
    else {
      secrets[name] = randomBytes(48).toString('base64');
      kept[name] = secrets[name];
      changed = true;
    }
  }
  if (changed) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(kept), { mode: 0o600 });
  }
  return secrets;
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
      .once('error', () => resolve(false))
      .listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function anyFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
  });
}

/**
 * The published ports: the shell's value when set, else the default when it is free, else a free one.
 * On a machine that already runs the dev stack (PostgreSQL on 5432, NATS on 4222), the containers'
 * ports move aside instead of failing to bind.
 */
export async function stackPorts(
  env: NodeJS.ProcessEnv,
): Promise<Record<keyof typeof PUBLISHED_PORTS, string>> {
  const ports = {} as Record<keyof typeof PUBLISHED_PORTS, string>;
  for (const [name, preferred] of Object.entries(PUBLISHED_PORTS) as Array<
    [keyof typeof PUBLISHED_PORTS, number]
  >) {
    const set = env[name];
    ports[name] = set ? set : String((await portIsFree(preferred)) ? preferred : await anyFreePort());
  }
  return ports;
}
