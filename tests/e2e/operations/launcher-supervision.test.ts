import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../infra/dev/tcp-probe.js';
import { eventually } from '../support/eventually.js';
import { openFileEnv } from '../support/file-env.js';
import { logDestination, recordSecrets } from '../support/log-capture.js';

// `npm start`'s launcher (infra/dev/launch.ts) as a user runs it, on this file's databases and
// nats-server, its state in a temporary folder (DEV_DATA_DIR) and the gateway on a free port: a memory
// service killed with SIGKILL is restarted and the rest keep running. The supervisor's policy itself
// (backoff, giving up) is unit-tested in infra/dev/test with small children.
const repo = new URL('../../..', import.meta.url).pathname;

let closeFileEnv: (() => Promise<void>) | undefined;
let launcher: ChildProcess | undefined;
let dataDir: string | undefined;
const lines: string[] = [];
const t = {} as { base: string; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> };

beforeAll(async () => {
  const opened = await openFileEnv(import.meta.filename);
  closeFileEnv = opened.close;
  dataDir = mkdtempSync(join(tmpdir(), 'tm-launcher-'));
  const port = await freePort();
  const secret = `launcher-test-${randomUUID()}`;
  recordSecrets([secret]);
  const metricsOnAnyPort = Object.fromEntries(
    ['GATEWAY', 'MEMORY', 'BILLING', 'TELEMETRY', 'TEMPLATE', 'WEBHOOKS'].map((s) => [
      `${s}_METRICS_PORT`,
      '0',
    ]),
  );
  launcher = spawn(process.execPath, ['--import', 'tsx', 'infra/dev/launch.ts'], {
    cwd: repo,
    env: {
      ...process.env,
      ...metricsOnAnyPort,
      DEV_DATA_DIR: dataDir,
      NATS_URL: opened.env.natsUrl,
      MEMORY_DATABASE_URL: opened.env.memoryDbUrl,
      BILLING_DATABASE_URL: opened.env.billingDbUrl,
      TELEMETRY_DATABASE_URL: opened.env.telemetryDbUrl,
      TEMPLATE_DATABASE_URL: opened.env.templateDbUrl,
      WEBHOOKS_DATABASE_URL: opened.env.webhooksDbUrl,
      GATEWAY_DATABASE_URL: opened.env.gatewayDbUrl,
      GATEWAY_PORT: String(port),
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_SECRET_KEY: secret,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child = launcher;
  t.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const log = logDestination(); // the run's log file: the credential leak check reads these lines too
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on('line', (line) => {
      log.write(`${line}\n`);
      lines.push(line);
    });
  }
  t.base = `http://127.0.0.1:${port}`;
  await until(() => lines.some((line) => /^dev\s+│ ready$/.test(line)), 180_000);
}, 240_000);

afterAll(async () => {
  if (launcher && launcher.exitCode === null && launcher.signalCode === null) {
    launcher.kill('SIGTERM');
    await Promise.race([t.exited, sleep(30_000)]);
  }
  await closeFileEnv?.();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Wait until `check` holds; a time-out shows the launcher's last lines, which say why. */
function until(check: () => boolean | Promise<boolean>, timeout = 60_000): Promise<void> {
  return eventually(
    async () => expect(await check(), `the launcher said:\n${lines.slice(-30).join('\n')}`).toBe(true),
    { timeout },
  );
}

/** The launcher's child running `services/<name>/src/start.ts`, read from /proc. */
function servicePid(name: string): number | undefined {
  const pid = launcher?.pid;
  if (!pid) return undefined;
  const children = readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number),
  );
  return children.find((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes(`services/${name}/src/start.ts`);
    } catch {
      return false; // gone meanwhile
    }
  });
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const memoryAvailable = () =>
  fetch(`${t.base}/api/v1/infrastructure/health`)
    .then((res) => res.json() as Promise<{ services?: { memory?: { available?: boolean } } }>)
    .then((health) => health.services?.memory?.available === true)
    .catch(() => false);

describe('npm start (infra/dev/launch.ts)', () => {
  it('when the memory service is killed with SIGKILL, then the launcher says so and restarts it, and the others keep running', async () => {
    const memoryBefore = servicePid('memory');
    const gatewayBefore = servicePid('gateway');
    if (!memoryBefore || !gatewayBefore) throw new Error('memory or gateway is not running');

    process.kill(memoryBefore, 'SIGKILL');
    await until(() => {
      const pid = servicePid('memory');
      return pid !== undefined && pid !== memoryBefore;
    });
    await until(memoryAvailable);

    expect(lines).toContainEqual(
      expect.stringMatching(
        /^dev\s+│ memory was killed by SIGKILL \(exit 137\); restarting it in \d+ ms \(failure 1 in a row; gives up at \d+\)$/,
      ),
    );
    expect(servicePid('gateway')).toBe(gatewayBefore);
    expect(launcher?.exitCode).toBeNull();
    expect(lines.filter((line) => /stopping the rest/.test(line))).toEqual([]);
  });

  it('when the stack is ready, then the launcher has kept its release record in releases/, as the release route answers it', async () => {
    // Written once the stack is healthy and every service has answered (after `ready`, and after the
    // memory service the test above killed is back).
    const kept = /^dev\s+│ {3}Release record {3}.*releases\/.*\.json$/;
    await until(() => lines.some((line) => kept.test(line)));
    const folder = join(dataDir as string, 'releases');
    const files = readdirSync(folder);
    const record = JSON.parse(readFileSync(join(folder, files[0] as string), 'utf8'));
    const route = await fetch(`${t.base}/api/v1/infrastructure/release`).then((r) => r.json());

    expect(files).toEqual([expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.json$/)]);
    // The same record as the route's, taken at another moment: only the time, the request id and
    // the health probes' readings differ.
    const stable = (r: typeof record) => ({
      ...r,
      recorded_at: undefined,
      request_id: undefined,
      health: undefined,
    });
    expect(stable(record)).toEqual(stable(route));
    // The public view: the launcher holds no operator token.
    expect(record).toMatchObject({
      view: 'public',
      contract_version: 'v1',
      capabilities: { contract_version: 'v1', production_ready: false },
      health: { status: 'ok', available: true },
    });
    expect(record).not.toHaveProperty('schema_versions');
  });

  it('when the launcher gets SIGTERM, then it stops everything and exits 0', async () => {
    const services = ['memory', 'billing', 'telemetry', 'template', 'webhooks', 'gateway'].map(servicePid);

    launcher?.kill('SIGTERM');

    expect(await t.exited).toEqual({ code: 0, signal: null });
    expect(services.every((pid) => pid !== undefined)).toBe(true);
    expect(services.filter((pid) => pid !== undefined && isAlive(pid))).toEqual([]);
  });
});
