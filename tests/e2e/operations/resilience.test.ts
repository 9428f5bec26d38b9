import { connect } from '@nats-io/transport-node';
import { Subjects } from '@tm/contracts';
import { GatewayConfigSchema, startGateway } from '@tm/gateway';
import { MemoryConfigSchema, startMemoryService } from '@tm/memory';
import { describe, expect, it } from 'vitest';
import { createApi } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { testLogger, useStack } from '../support/stack.js';

const t = useStack({ breakerResetMs: 300, requestTimeoutMs: 500 });

describe('when the memory service is down', () => {
  it('then calls get a retryable 503, the breaker opens, and service resumes when memory is back', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const key = uniqueKey();
    const body = writeBody(namespace, 'written across an outage');

    await t.stack.stopMemory();
    const during = await t.api.write(tenant.api_key, body, key);
    const recalls = [];
    for (let i = 0; i < 3; i++)
      recalls.push(await t.api.recall(tenant.api_key, recallBody(namespace, 'outage')));

    expect(during).toMatchObject({
      status: 503,
      body: { retryable: true, idempotency_outcome: 'Retryable', details: { code: 'service_unavailable' } },
    });
    // A recall takes no idempotency key, so its failure names no idempotency outcome.
    for (const recall of recalls) expect(recall.body).not.toHaveProperty('idempotency_outcome');
    expect(Number(during.headers['retry-after'])).toBeGreaterThan(0);
    expect(t.stack.gateway.memory.breaker.opened).toBe(true);
    const health = await t.api.get('/api/v1/infrastructure/health');
    expect(health).toMatchObject({
      status: 503,
      body: {
        status: 'unavailable',
        available: false,
        services: { memory: { available: false, required: true } },
        error: 'Writes cannot be served now: memory unavailable',
        details: { code: 'service_unavailable' },
      },
    });

    await t.stack.startMemory();
    const retried = await eventually(async () => {
      const r = await t.api.write(tenant.api_key, body, key);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r;
    });

    expect(retried).toMatchObject({
      status: 200,
      body: { state: 'retained', idempotency_outcome: 'Accepted' },
    });
    expect(t.stack.gateway.memory.breaker.closed).toBe(true);
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'outage'));
    expect(recalled.body.related).toHaveLength(1);
  });
});

describe('when the memory service does not answer in time', () => {
  it('then the gateway answers 504 retryable within its deadline instead of hanging', async () => {
    const tenant = await createTenant();
    // A responder that takes the request and never answers: a hung instance.
    const hung = await connect({ servers: t.stack.env.natsUrl });
    hung.subscribe(Subjects.memory.recall, { queue: 'memory', callback: () => {} });
    await t.stack.stopMemory();
    await hung.flush();
    try {
      const res = await t.api.recall(tenant.api_key, recallBody(uniqueNamespace(), 'slow'));
      expect(res).toMatchObject({
        status: 504,
        body: { retryable: true, details: { code: 'upstream_timeout' } },
      });
      expect(res.headers['retry-after']).toBeDefined();
    } finally {
      await hung.close();
      await t.stack.startMemory();
    }
  });
});

describe('when PostgreSQL is unreachable', () => {
  it('then a write to a memory service without its database is a retryable 503 and nothing is half-written', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const key = uniqueKey();
    await t.stack.stopMemory();
    const unreachable = await startStackMemoryWithDatabase('postgresql://postgres@127.0.0.1:1/tm_memory');
    try {
      const res = await t.api.write(
        tenant.api_key,
        writeBody(namespace, 'written while storage is down'),
        key,
      );
      expect(res).toMatchObject({
        status: 503,
        body: { retryable: true, details: { code: 'storage_unavailable' } },
      });
      expect(res.headers['retry-after']).toBeDefined();
    } finally {
      await unreachable.stop();
      await t.stack.startMemory();
    }
    const retried = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'written while storage is down'),
      key,
    );
    expect(retried).toMatchObject({ status: 200, body: { idempotency_outcome: 'Accepted' } });
  });

  // Last in the file: a process holds one gateway database, so the stack's gateway makes way.
  it('then a gateway without its database answers a retryable 503, not a 500; its health is 503 naming it, its liveness 200', async () => {
    const tenant = await createTenant();
    await t.stack.stopGateway();
    const gateway = await startGateway(
      GatewayConfigSchema.parse({
        GATEWAY_PORT: '0',
        GATEWAY_HOST: '127.0.0.1',
        GATEWAY_DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/tm_gateway',
        NATS_URL: t.stack.env.natsUrl,
      }),
      testLogger(),
    );
    try {
      const api = await createApi(gateway.url);
      const res = await api.recall(tenant.api_key, recallBody(uniqueNamespace(), 'anything'));
      const health = await api.get('/api/v1/infrastructure/health');
      const live = await api.get('/api/v1/infrastructure/health/live');
      expect(res).toMatchObject({
        status: 503,
        body: { retryable: true, details: { code: 'storage_unavailable' } },
      });
      expect(health).toMatchObject({
        status: 503,
        body: {
          status: 'unavailable',
          services: {
            gateway_store: {
              available: false,
              required: true,
              dependencies: { database: { available: false } },
            },
            memory: { available: true },
          },
          error: 'Writes cannot be served now: gateway_store (database) unavailable',
        },
      });
      expect(live).toMatchObject({ status: 200, body: { status: 'alive' } });
    } finally {
      await gateway.stop();
    }
  });
});

async function startStackMemoryWithDatabase(url: string) {
  const config = MemoryConfigSchema.parse({ MEMORY_DATABASE_URL: url, NATS_URL: t.stack.env.natsUrl });
  return startMemoryService(config, testLogger());
}
