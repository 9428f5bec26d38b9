import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { type Api, createApi } from './api.js';
import { openFileEnv } from './file-env.js';
import { recordSecrets } from './log-capture.js';
import { type ServiceProcess, startServiceProcess } from './service-process.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * Another deployment beside this file's stack: its own databases and nats-server (openFileEnv, under
 * `<file>-second`), and every service as its own OS process, since the services' database clients are
 * one per process and an in-process stack holds them. A tenant is bootstrapped in it with the admin
 * CLI, as an operator would. Fields are set once `beforeAll` has run.
 */
/** A bound against a hung start, not a speed check (each service logs when it is ready). */
const READY_MS = 120_000;

export function useSecondDeployment() {
  const d = {} as { api: Api; apiKey: string; tenantId: string };
  const processes: ServiceProcess[] = [];
  let close: (() => Promise<void>) | undefined;
  beforeAll(async (file) => {
    const filepath = 'filepath' in file ? file.filepath : file.file.filepath;
    const opened = await openFileEnv(filepath.replace(/\.test\.ts$/, '-second.test.ts'));
    close = opened.close;
    const { env } = opened;
    const secretKey = randomBytes(32).toString('base64url');
    recordSecrets([secretKey]);
    const gatewayEnv = {
      GATEWAY_DATABASE_URL: env.gatewayDbUrl,
      NATS_URL: env.natsUrl,
      GATEWAY_SECRET_KEY: secretKey,
    };
    // Four processes compiling the services with tsx at once: on two loaded cores one took over 30 s.
    const start = (...args: Parameters<typeof startServiceProcess>) =>
      startServiceProcess(args[0], args[1], READY_MS).then((p) => {
        processes.push(p);
        return p;
      });
    await Promise.all([
      start('memory', {
        MEMORY_DATABASE_URL: env.memoryDbUrl,
        NATS_URL: env.natsUrl,
        OUTBOX_RELAY_INTERVAL_MS: '100',
      }),
      start('billing', { BILLING_DATABASE_URL: env.billingDbUrl, NATS_URL: env.natsUrl }),
      start('telemetry', { TELEMETRY_DATABASE_URL: env.telemetryDbUrl, NATS_URL: env.natsUrl }),
      start('template', {
        TEMPLATE_DATABASE_URL: env.templateDbUrl,
        NATS_URL: env.natsUrl,
        IMPORT_POLL_MS: '200',
      }),
    ]);
    const gateway = await start('gateway', {
      ...gatewayEnv,
      GATEWAY_PORT: '0',
      GATEWAY_HOST: '127.0.0.1',
    });
    d.api = await createApi(`http://127.0.0.1:${gateway.ready.port}`);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'services/gateway/src/admin/cli.ts', 'bootstrap', '--json', '--name', 'second'],
      { cwd: root, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...gatewayEnv } },
    );
    const tenant = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
      api_key: string;
      tenant_id: string;
    };
    recordSecrets([tenant.api_key]);
    d.apiKey = tenant.api_key;
    d.tenantId = tenant.tenant_id;
  }, 4 * READY_MS);
  afterAll(async () => {
    for (const p of processes.reverse()) await p.kill('SIGTERM');
    await close?.();
  });
  return d;
}
