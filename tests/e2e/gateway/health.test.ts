import { afterEach, describe, expect, it } from 'vitest';
import { bringDatabaseBack, takeDatabaseDown } from '../support/database-outage.js';
import { eventually } from '../support/eventually.js';
import { createTenant, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { stackEnv, useStack } from '../support/stack.js';

// A reset far longer than any test here: a write that succeeds soon after its service is back shows
// the breaker was closed by the service's answer, not by the reset running out.
const t = useStack({ breakerResetMs: 60_000, requestTimeoutMs: 500 });

const HEALTH = '/api/v1/infrastructure/health';
const LIVE = '/api/v1/infrastructure/health/live';

const database = { available: true, latency_ms: expect.any(Number) };
const nats = { available: true };
const consumer = { available: true, pending: expect.any(Number), ack_pending: expect.any(Number) };
const healthy = {
  gateway_store: { available: true, required: true, dependencies: { database } },
  memory: { available: true, required: true, dependencies: { database, nats } },
  billing: { available: true, required: false, dependencies: { database, nats, 'billing-usage': consumer } },
  telemetry: {
    available: true,
    required: false,
    dependencies: {
      database,
      nats,
      'telemetry-requests': consumer,
      'telemetry-dead-letters': consumer,
    },
  },
  template: { available: true, required: false, dependencies: { database, nats } },
  webhooks: {
    available: true,
    required: false,
    dependencies: {
      database,
      nats,
      'webhooks-memory-usage': consumer,
      'webhooks-memory-events': consumer,
      'webhooks-template-events': consumer,
      'webhooks-telemetry-events': consumer,
      'webhooks-billing-events': consumer,
    },
  },
};
const report = {
  execution_mode: 'mock',
  deployment_version: expect.any(String),
  environment: expect.any(String),
  contract_version: 'v1',
  schema_version: expect.any(String),
  checked_at: expect.any(String),
  production_ready: false,
};

/** Databases a test took down, brought back even when it fails half-way. */
const down: string[] = [];
afterEach(async () => {
  for (const url of down.splice(0)) await bringDatabaseBack(url);
});
async function takeDown(url: string) {
  down.push(url);
  await takeDatabaseDown(url);
}

describe('GET /api/v1/infrastructure/health', () => {
  it('when every service and database answers, then 200 ok with what each service reports of its own dependencies', async () => {
    // "Answers" means within the ping deadline: on cores shared with other test files a freshly started
    // service's first ping can miss it (then health is rightly 503), and a consumer's lag read can miss
    // its own (then 200 degraded). Ask until every one has answered in time.
    await expect
      .poll(async () => (await t.api.get(HEALTH)).body.status, { timeout: 20_000, interval: 250 })
      .toBe('ok');
    const res = await t.api.get(HEALTH);

    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: { status: 'ok', available: true, ...report, services: healthy },
    });
  });

  it("when the memory database refuses connections, then 503 naming memory's database, with Retry-After, while writes are refused and liveness stays 200", async () => {
    const tenant = await createTenant();
    await takeDown(stackEnv().memoryDbUrl);

    const health = await t.api.get(HEALTH);
    const write = await t.api.write(tenant.api_key, writeBody(uniqueNamespace(), 'no storage'), uniqueKey());
    const live = await t.api.get(LIVE);

    expect({ status: health.status, body: health.body }).toEqual({
      status: 503,
      body: {
        status: 'unavailable',
        available: false,
        ...report,
        services: {
          ...healthy,
          memory: {
            available: false,
            required: true,
            dependencies: { database: { available: false }, nats },
          },
        },
        error: 'Writes cannot be served now: memory (database) unavailable',
        retryable: true,
        request_id: health.headers['x-request-id'],
        details: { code: 'service_unavailable', request_id: health.headers['x-request-id'] },
      },
    });
    expect(health.headers['retry-after']).toBe('2');
    expect(write).toMatchObject({
      status: 503,
      body: { retryable: true, details: { code: 'storage_unavailable' } },
    });
    expect({ status: live.status, body: live.body }).toEqual({
      status: 200,
      body: { contract_version: 'v1', status: 'alive', checked_at: expect.any(String) },
    });
  });

  it('when the memory database is back, then 200 ok again', async () => {
    await takeDown(stackEnv().memoryDbUrl);
    await bringDatabaseBack(down.splice(0)[0] as string);

    // Each probe has its own deadline: on loaded cores one can miss it once; the state asserted is
    // the one health returns to.
    await eventually(async () => {
      const res = await t.api.get(HEALTH);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { status: 'ok', available: true, ...report, services: healthy },
      });
    });
  });

  it('when the billing database refuses connections, then 200 degraded naming it, and writes are still served', async () => {
    const tenant = await createTenant();
    await takeDown(stackEnv().billingDbUrl);

    const health = await t.api.get(HEALTH);
    const write = await t.api.write(
      tenant.api_key,
      writeBody(uniqueNamespace(), 'billed later'),
      uniqueKey(),
    );

    expect({ status: health.status, body: health.body }).toEqual({
      status: 200,
      body: {
        status: 'degraded',
        available: true,
        ...report,
        services: {
          ...healthy,
          billing: {
            available: false,
            required: false,
            dependencies: { database: { available: false }, nats, 'billing-usage': consumer },
          },
        },
      },
    });
    expect(write).toMatchObject({ status: 200, body: { state: 'retained' } });
  });
});

describe('GET /api/v1/infrastructure/health/live', () => {
  it('when the gateway runs, then 200 alive', async () => {
    const res = await t.api.get(LIVE);

    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: { contract_version: 'v1', status: 'alive', checked_at: expect.any(String) },
    });
  });
});

describe('the memory breaker, when memory comes back', () => {
  /** Stop memory and send writes until the gateway's breaker for it opens. */
  async function openTheBreaker(apiKey: string) {
    await t.stack.stopMemory();
    for (let i = 0; i < 3; i++) await t.api.write(apiKey, writeBody(uniqueNamespace(), 'away'), uniqueKey());
    expect(t.stack.gateway.memory.breaker.opened).toBe(true);
  }

  it('when health has seen memory answer, then the very next write is served, without waiting out the reset', async () => {
    const tenant = await createTenant();
    await openTheBreaker(tenant.api_key);
    const refused = await t.api.write(tenant.api_key, writeBody(uniqueNamespace(), 'refused'), uniqueKey());

    await t.stack.startMemory();
    // Until memory has answered health (its database probe connects on the first ask, which takes
    // longer than health's bound on a busy machine); then the write right after it is the point.
    const health = await eventually(async () => {
      const res = await t.api.get(HEALTH);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res;
    });
    const write = await t.api.write(tenant.api_key, writeBody(uniqueNamespace(), 'served'), uniqueKey());

    expect(refused).toMatchObject({
      status: 503,
      body: { retryable: true, details: { code: 'service_unavailable' } },
    });
    // The breaker's own probe closes it within a quarter second, so that is the wait to suggest.
    expect(refused.headers['retry-after']).toBe('1');
    expect(health).toMatchObject({ status: 200, body: { status: 'ok', available: true } });
    expect(write).toMatchObject({
      status: 200,
      body: { state: 'retained', idempotency_outcome: 'Accepted' },
    });
    expect(t.stack.gateway.memory.breaker.closed).toBe(true);
  });

  it('when nobody asks health, then the breaker probes memory itself and a write retried with its key is served within seconds of a 60 s reset', async () => {
    const tenant = await createTenant();
    const body = writeBody(uniqueNamespace(), 'retried until served');
    const key = uniqueKey();
    await openTheBreaker(tenant.api_key);

    await t.stack.startMemory();

    await expect
      .poll(async () => (await t.api.write(tenant.api_key, body, key)).body.idempotency_outcome, {
        timeout: 10_000,
        interval: 100,
      })
      .toMatch(/^(Accepted|Replayed)$/);
    expect(t.stack.gateway.memory.breaker.closed).toBe(true);
  });
});
