import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Subjects } from '@tm/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, createApi } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { openFileEnv } from '../support/file-env.js';
import { recordSecrets } from '../support/log-capture.js';
import { deliveriesByConnection } from '../support/nats-monitor.js';
import { type ServiceProcess, startServiceProcess } from '../support/service-process.js';
import { bugTemplate } from '../support/templates.js';

// A gateway given SIGTERM while requests are in flight, each service its own process as in
// production: one request held by a memory service that never answers (SIGSTOPped), one whose body is
// still arriving for the healthy template service. The bound is short here (DRAIN_TIMEOUT_MS); the
// request deadline is far beyond it, so a 503 can only be the drain's answer, never a 504.
const DRAIN_TIMEOUT_MS = 3_000;
const REQUEST_TIMEOUT_MS = 60_000;
const repo = new URL('../../..', import.meta.url).pathname;

let closeFileEnv: (() => Promise<void>) | undefined;
const started: ServiceProcess[] = [];
const t = {} as {
  env: Record<string, string>;
  natsMonitorUrl: string;
  memory: ServiceProcess;
  gateway: ServiceProcess;
  port: number;
  api: Api;
  apiKey: string;
};

beforeAll(async () => {
  const opened = await openFileEnv(import.meta.filename);
  closeFileEnv = opened.close;
  t.natsMonitorUrl = opened.env.natsMonitorUrl;
  t.env = {
    NATS_URL: opened.env.natsUrl,
    MEMORY_DATABASE_URL: opened.env.memoryDbUrl,
    TEMPLATE_DATABASE_URL: opened.env.templateDbUrl,
    GATEWAY_DATABASE_URL: opened.env.gatewayDbUrl,
    GATEWAY_PORT: '0',
    GATEWAY_HOST: '127.0.0.1',
    GATEWAY_SECRET_KEY: `graceful-stop-${randomUUID()}`,
    GATEWAY_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    DRAIN_TIMEOUT_MS: String(DRAIN_TIMEOUT_MS),
  };
  recordSecrets([t.env.GATEWAY_SECRET_KEY]);
  const [memory, template, gateway] = await Promise.all([
    startServiceProcess('memory', t.env),
    startServiceProcess('template', t.env),
    startServiceProcess('gateway', t.env, 60_000),
  ]);
  started.push(memory, template, gateway);
  Object.assign(t, { memory, gateway, port: gateway.ready.port });
  t.api = await createApi(`http://127.0.0.1:${t.port}`);
  t.apiKey = await bootstrapKey(t.env);
}, 120_000);

afterAll(async () => {
  t.memory?.signal('SIGCONT');
  await Promise.all(started.map((p) => p.kill('SIGKILL')));
  await closeFileEnv?.();
});

/** A tenant and key made by the admin command, as an operator would (this process holds no gateway). */
async function bootstrapKey(env: Record<string, string>): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'services/gateway/src/admin/cli.ts', 'bootstrap', '--json', '--name', 'graceful'],
    { cwd: repo, env: { ...process.env, ...env } },
  );
  const created = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { api_key: string };
  recordSecrets([created.api_key]);
  return created.api_key;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * A JSON request on its own connection. With `holdBack`, the body's last bytes are sent only when
 * `sendRest` is called: the gateway has the request, but cannot finish it until then.
 */
function send(method: string, path: string, body: unknown, headers: Record<string, string>, holdBack = 0) {
  const data = Buffer.from(JSON.stringify(body));
  const req = request({
    host: '127.0.0.1',
    port: t.port,
    method,
    path,
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': data.length, ...headers },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        }),
      );
    });
  });
  answer.catch(() => {}); // awaited by the test; a failure before that must not be an unhandled rejection
  req.write(data.subarray(0, data.length - holdBack));
  return { answer, sendRest: () => req.end(data.subarray(data.length - holdBack)) };
}

/** Messages the memory service's connections have been handed on the (coalesced) write subject. */
async function writesDeliveredToMemory(): Promise<number> {
  const connections = await deliveriesByConnection(t.natsMonitorUrl, 'memory');
  return connections.reduce((sum, c) => sum + (c.bySubject[Subjects.memory.writeCoalesced] ?? 0), 0);
}

describe('gateway graceful stop (SIGTERM)', () => {
  it('when one request is held by a memory service that never answers and another is still arriving, then the second completes, the first gets a retryable 503 at the drain bound, and the gateway exits 0', async () => {
    const auth = { authorization: `Bearer ${t.apiKey}` };
    const templateName = `drain_${randomUUID().slice(0, 8)}`;
    const healthy = send('POST', '/v1/templates', bugTemplate(templateName), auth, 10);
    const writesBefore = await writesDeliveredToMemory();
    t.memory.signal('SIGSTOP');
    const idempotencyKey = uniqueKey();
    const body = writeBody(uniqueNamespace('drain'), 'held by a stopped memory service');
    const held = send('POST', '/api/v1/memory/write', body, { ...auth, 'idempotency-key': idempotencyKey });
    await eventually(async () => expect(await writesDeliveredToMemory()).toBeGreaterThan(writesBefore), {
      interval: 50,
    });

    const sigtermAt = Date.now();
    t.gateway.signal('SIGTERM');
    await sleep(300);
    healthy.sendRest();
    const completed = await healthy.answer;
    const newConnection = await fetch(`http://127.0.0.1:${t.port}/api/v1/infrastructure/health`).then(
      () => 'accepted',
      (err: { cause?: { code?: string } }) => err.cause?.code,
    );
    const cut = await held.answer;
    const answeredAfterMs = Date.now() - sigtermAt;
    const exited = await t.gateway.exited;

    expect(completed).toMatchObject({
      status: 201,
      headers: { connection: 'close' },
      body: { template_name: templateName, revision: 1 },
    });
    t.api.contract.expectResponse('post', '/v1/templates', completed.status, completed.body);
    expect(newConnection).toBe('ECONNREFUSED');
    expect(cut).toMatchObject({
      status: 503,
      headers: { 'retry-after': '1', connection: 'close' },
      body: {
        error: expect.any(String),
        retryable: true,
        idempotency_outcome: 'Retryable',
        details: { code: 'service_unavailable' },
      },
    });
    t.api.contract.expectResponse('post', '/api/v1/memory/write', cut.status, cut.body);
    // Answered by the drain, long before the request's own deadline would have made it a 504.
    expect(answeredAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS);
    expect(exited).toEqual({ code: 0, signal: null });
    expect(t.gateway.lines.join('\n')).toContain('requests still held at the drain bound');
  });
});
