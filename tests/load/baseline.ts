import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { createBaselineDatabase } from './baseline-database.js';
import { spawnTypeScript } from './ts-process.js';

export interface BaselineServer {
  url: string;
  stop(): Promise<void>;
}

const SERVER_FILE = new URL('./baseline-server.ts', import.meta.url).pathname;

/** Create the throwaway database, start baseline-server.ts on a free port, and wait until it listens. */
export async function startBaseline(): Promise<BaselineServer> {
  const databaseUrl = await createBaselineDatabase();
  const child = spawnTypeScript(SERVER_FILE, [], {
    env: {
      ...process.env,
      BASELINE_DATABASE_URL: databaseUrl,
      BASELINE_PORT: process.env.BENCH_BASELINE_PORT ?? '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await readPort(child);
    return { url: `http://127.0.0.1:${port}`, stop: () => stopBaseline(child) };
  } catch (err) {
    await stopBaseline(child);
    throw err;
  }
}

async function readPort(child: ChildProcess): Promise<number> {
  if (!child.stdout) throw new Error('baseline server has no stdout pipe');
  const lines = createInterface({ input: child.stdout });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`baseline server exited with ${code} before listening`);
  });
  const listening = (async () => {
    for await (const line of lines) {
      if (!line.startsWith('{')) continue;
      const port = (JSON.parse(line) as { port?: number }).port;
      if (port) return port;
    }
    throw new Error('baseline server closed its output before listening');
  })();
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error('baseline server did not listen within 20 s')), 20_000).unref(),
  );
  return Promise.race([listening, exited, timeout]);
}

async function stopBaseline(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
