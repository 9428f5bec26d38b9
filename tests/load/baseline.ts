import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { createBaselineDatabase, createSameWorkDatabase, memoryDatabaseUrl } from './baseline-database.js';
import { spawnTypeScript } from './ts-process.js';

export interface BaselineServer {
  url: string;
  stop(): Promise<void>;
}

const file = (name: string) => new URL(name, import.meta.url).pathname;

/** Create the throwaway database, start baseline-server.ts on a free port, and wait until it listens. */
export async function startBaseline(): Promise<BaselineServer> {
  return startServer('baseline server', file('./baseline-server.ts'), {
    BASELINE_DATABASE_URL: await createBaselineDatabase(),
    BASELINE_PORT: process.env.BENCH_BASELINE_PORT ?? '0',
  });
}

/**
 * Start same-work-server.ts: writes into a fresh database with the memory schema, recalls from the
 * memory database's namespaces of `tenantId`.
 */
export async function startSameWork(tenantId: string): Promise<BaselineServer> {
  return startServer('same-work server', file('./same-work-server.ts'), {
    SAME_WORK_DATABASE_URL: await createSameWorkDatabase(),
    MEMORY_DATABASE_URL: memoryDatabaseUrl(),
    SAME_WORK_TENANT_ID: tenantId,
  });
}

async function startServer(name: string, path: string, env: NodeJS.ProcessEnv): Promise<BaselineServer> {
  const child = spawnTypeScript(path, [], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await readPort(name, child);
    return { url: `http://127.0.0.1:${port}`, stop: () => stopServer(child) };
  } catch (err) {
    await stopServer(child);
    throw err;
  }
}

async function readPort(name: string, child: ChildProcess): Promise<number> {
  if (!child.stdout) throw new Error(`${name} has no stdout pipe`);
  const lines = createInterface({ input: child.stdout });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`${name} exited with ${code} before listening`);
  });
  const listening = (async () => {
    for await (const line of lines) {
      if (!line.startsWith('{')) continue;
      const port = (JSON.parse(line) as { port?: number }).port;
      if (port) return port;
    }
    throw new Error(`${name} closed its output before listening`);
  })();
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`${name} did not listen within 20 s`)), 20_000).unref(),
  );
  return Promise.race([listening, exited, timeout]);
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
