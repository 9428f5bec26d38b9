import { randomBytes } from 'node:crypto';
import { prom, serveMetrics } from '@tm/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { type ServiceProcess, startServiceProcess } from '../support/service-process.js';
import { testLogger, useStack } from '../support/stack.js';

/**
 * What an operator sees: each service's Prometheus exposition on its own port, and one W3C trace id in
 * the log lines of every hop a request makes (gateway → NATS → memory). A second memory instance runs
 * as its own process with its own metrics port; the stack's (in this process) shares its queue group.
 */
const t = useStack();
let memoryB: ServiceProcess;
let metricsUrl: string;

/** One series' value from an exposition: the sum over every series of `name` whose labels include `labels`. */
function seriesSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

const scrape = async () => {
  const res = await fetch(metricsUrl);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return res.text();
};

const traceparent = () => ({
  traceId: randomBytes(16).toString('hex'),
  header: (traceId: string) => `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
});

beforeAll(async () => {
  const env = t.stack.env;
  memoryB = await startServiceProcess('memory', {
    MEMORY_DATABASE_URL: env.memoryDbUrl,
    NATS_URL: env.natsUrl,
  });
  const line = await eventually(
    () => {
      const line = memoryB.lines.find((l) => l.includes('"metrics at /metrics"'));
      expect(line, 'the instance says where its metrics are').toBeDefined();
      return line as string;
    },
    { interval: 50 },
  );
  const port = (JSON.parse(line) as { metrics_port: number }).metrics_port;
  expect(port).toBeGreaterThan(0);
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
});

afterAll(async () => {
  await memoryB?.kill('SIGTERM');
});

describe('Prometheus metrics', () => {
  it('when recalls are answered, then the memory process counts and times them by subject, and reports its pool, outbox and process', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('obs');
    await t.api.write(tenant.api_key, writeBody(namespace, 'metrics are scraped'), uniqueKey());
    const before = await scrape();
    const recalls = 40;
    for (let i = 0; i < recalls; i++) {
      expect((await t.api.recall(tenant.api_key, recallBody(namespace, 'metrics scraped'))).status).toBe(200);
    }
    const after = await scrape();
    const answered = (text: string) =>
      seriesSum(text, 'tm_bus_handled_total', { subject: 'memory.v1.recall', outcome: 'ok' });
    // Two instances share the queue group: this one answered some of the 40, never more.
    const byB = answered(after) - answered(before);
    expect(byB).toBeGreaterThan(0);
    expect(byB).toBeLessThanOrEqual(recalls);
    expect(seriesSum(after, 'tm_bus_handle_duration_seconds_count', { subject: 'memory.v1.recall' })).toBe(
      answered(after),
    );
    expect(after).toMatch(/^tm_db_pool_connections\{[^}]*state="idle"[^}]*\} \d+/m);
    expect(after).toMatch(/^tm_outbox_backlog\{[^}]*outbox="memory_usage"[^}]*\} \d+/m);
    expect(after).toMatch(/^tm_process_cpu_user_seconds_total\{[^}]*service="memory"[^}]*\} /m);
  });

  it('when the gateway answers, then its requests are counted by operation and status class, its breakers and bus round trips reported', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('obs');
    const count = async () =>
      seriesSum(await prom.register.metrics(), 'tm_http_request_duration_seconds_count', {
        operation: 'memory.recall',
        method: 'POST',
        status_class: '2xx',
      });
    const before = await count();
    for (let i = 0; i < 5; i++) await t.api.recall(tenant.api_key, recallBody(namespace, 'anything'));
    expect((await t.api.recall('tmk_not_a_key', recallBody(namespace, 'anything'))).status).toBe(401);
    expect(await count()).toBe(before + 5);
    const text = await prom.register.metrics();
    expect(
      seriesSum(text, 'tm_http_request_duration_seconds_count', {
        operation: 'memory.recall',
        status_class: '4xx',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^tm_breaker_state\{[^}]*target="memory"[^}]*\} 0$/m);
    expect(
      seriesSum(text, 'tm_bus_request_duration_seconds_count', { service: 'memory' }),
    ).toBeGreaterThanOrEqual(5);
  });

  it('when metrics are served on their own listener, then only GET /metrics answers, and the public API has no /metrics', async () => {
    const server = await serveMetrics({ port: 0, host: '127.0.0.1', logger: testLogger() });
    try {
      const ok = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('tm_http_request_duration_seconds');
      expect((await fetch(`http://127.0.0.1:${server.port}/`)).status).toBe(404);
    } finally {
      await server.close();
    }
    const publicMetrics = await t.api.get('/metrics');
    expect(publicMetrics.status).toBe(404);
    expect(JSON.stringify(publicMetrics.body)).not.toContain('tm_');
  });
});

describe('trace context across NATS', () => {
  it('when requests carry a traceparent, then the gateway continues the trace and the memory instance logs each hop under the same trace id', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('trace');
    const sent: Array<{ traceId: string; gatewaySpan: string }> = [];
    for (let i = 0; i < 20; i++) {
      const { traceId, header } = traceparent();
      // Writes travel batched (one message, a trace per item), recalls one message each.
      const res =
        i % 2 === 0
          ? await t.api.write(tenant.api_key, writeBody(namespace, `traced note ${i}`), uniqueKey(), {
              traceparent: header(traceId),
            })
          : await t.api.post('/api/v1/memory/recall', {
              key: tenant.api_key,
              body: recallBody(namespace, 'traced note'),
              headers: { traceparent: header(traceId) },
            });
      expect(res.status).toBe(200);
      const answered = String(res.headers.traceparent).split('-');
      expect(answered[1]).toBe(traceId); // the same trace, the gateway's own span
      sent.push({ traceId, gatewaySpan: answered[2] as string });
    }
    // The instance answered some of the 20 (two share the queue group); each of its lines for one of
    // them names the trace, its own span and the gateway's span as parent.
    await new Promise((r) => setTimeout(r, 200));
    const hops = memoryB.lines
      .filter((line) => line.includes('"message answered"'))
      .map(
        (line) =>
          JSON.parse(line) as {
            trace_id?: string;
            span_id?: string;
            parent_span_id?: string;
            request_id?: string;
          },
      );
    const ours = sent.flatMap((s) =>
      hops.filter((h) => h.trace_id === s.traceId).map((h) => ({ ...h, sent: s })),
    );
    expect(ours.length).toBeGreaterThan(0);
    for (const hop of ours) {
      expect(hop.parent_span_id).toBe(hop.sent.gatewaySpan);
      expect(hop.span_id).toMatch(/^[0-9a-f]{16}$/);
      expect(hop.span_id).not.toBe(hop.sent.gatewaySpan);
      expect(hop.request_id).toMatch(/^req_/);
    }
  });

  it("when one tenant's request id holds the batch header's separators, then another tenant's write in the same batch keeps its own trace and request id", async () => {
    const attacker = await createTenant();
    const victim = await createTenant();
    const namespace = uniqueNamespace('batch-trace');
    const forged = traceparent();
    // Until a review this shifted every later item of the batch onto the forged trace and id.
    const hostileId = `x,${forged.header(forged.traceId)};forged`;
    type Hop = { trace_id?: string; request_id?: string };
    const hops = () =>
      memoryB.lines
        .filter((line) => line.includes('"message answered"'))
        .map((line) => JSON.parse(line) as Hop);
    const victimTraces = new Map<string, string>();
    const victimWrite = (round: number, i: number) => {
      const { traceId, header } = traceparent();
      const victimId = `victim-${round}-${i}-${randomBytes(4).toString('hex')}`;
      victimTraces.set(traceId, victimId);
      return t.api
        .write(victim.api_key, writeBody(namespace, `own ${round} ${i}`), uniqueKey(), {
          'X-Request-Id': victimId,
          traceparent: header(traceId),
        })
        .then((res) => expect(res).toMatchObject({ status: 200, headers: { 'x-request-id': victimId } }));
    };
    const hostileWrite = (round: number, i: number) =>
      t.api
        .write(attacker.api_key, writeBody(namespace, `hostile ${round} ${i}`), uniqueKey(), {
          'X-Request-Id': hostileId,
        })
        .then((res) => expect(res).toMatchObject({ status: 200, headers: { 'x-request-id': hostileId } }));
    // Writes arriving together travel as one batch (to one of two instances): send interleaved
    // rounds until the instance whose log this test reads has answered some of the victim's.
    for (let round = 0; round < 20; round++) {
      await Promise.all(
        Array.from({ length: 8 }, (_, i) => [hostileWrite(round, i), victimWrite(round, i)]).flat(),
      );
      if (hops().filter((h) => h.trace_id && victimTraces.has(h.trace_id)).length >= 8) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const victimHops = hops().filter((h) => h.trace_id && victimTraces.has(h.trace_id));
    expect(victimHops.length).toBeGreaterThan(0);
    for (const hop of victimHops) expect(hop.request_id).toBe(victimTraces.get(hop.trace_id as string));
    expect(hops().filter((h) => h.trace_id === forged.traceId || h.request_id === 'forged')).toEqual([]);
  });

  it('when the traceparent is malformed, then a new trace is started and answered', async () => {
    const tenant = await createTenant();
    const res = await t.api.post('/api/v1/memory/recall', {
      key: tenant.api_key,
      body: recallBody(uniqueNamespace('trace'), 'x'),
      headers: { traceparent: `00-${'0'.repeat(32)}-${'1'.repeat(16)}-01` },
    });
    expect(res.status).toBe(200);
    expect(String(res.headers.traceparent)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(String(res.headers.traceparent)).not.toContain('0'.repeat(32));
  });
});
