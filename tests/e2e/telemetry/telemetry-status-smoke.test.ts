import { randomUUID } from 'node:crypto';
import { RESERVED_NAMESPACE_PREFIX, RUNTIME, SCHEMA_VERSION } from '@tm/contracts';
import { GatewayConfigSchema, startGateway } from '@tm/gateway';
import { describe, expect, it } from 'vitest';
import { type Api, createApi } from '../support/api.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { memoryDbCount, recordsInNamespace } from '../support/memory-db.js';
import { testLogger, useStack } from '../support/stack.js';
import { eventsFor, telemetryDbRows } from '../support/telemetry.js';

const t = useStack();

const STATUS = '/api/v1/infrastructure/status';
const HEALTH = '/api/v1/infrastructure/health';
const EVENTS = '/api/v1/infrastructure/events';
const ANOMALIES = '/api/v1/infrastructure/anomalies';
const USAGE = '/api/v1/infrastructure/usage';
const SMOKE_TEST = '/api/v1/infrastructure/smoke-test';
const OPERATOR_TOKENS = '/api/v1/control/operator-tokens';
const CONSENT = '/api/v1/control/consent';

/** The window the status route's monitoring looks back over (compose-status.ts). */
const STATUS_WINDOW_MINUTES = 15;
const timestamp = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
const everyServiceAvailable = {
  memory: { available: true },
  billing: { available: true },
  telemetry: { available: true },
  template: { available: true },
  gateway_store: { available: true },
};

type Res = Awaited<ReturnType<Api['get']>>;

/** A tenant, its owner's session and a live operator token the owner issued. */
async function operatorTenant(options: { consent?: boolean } = {}) {
  const tenant = await createTenant(options);
  const session = await t.api.login(tenant.owner.email, tenant.owner.password);
  const issued = await t.api.post(OPERATOR_TOKENS, { key: session, body: { name: 'smoke test' } });
  expect(issued.status).toBe(201);
  return {
    ...tenant,
    session,
    operatorToken: issued.body.token as string,
    operatorTokenId: issued.body.id as string,
  };
}

const smokeTest = (credential: string | undefined, operatorToken: string | undefined, api: Api = t.api) =>
  api.post(SMOKE_TEST, {
    key: credential,
    headers: operatorToken === undefined ? {} : { 'X-Operator-Token': operatorToken },
  });

/** Every memory record the tenant holds under the smoke test's reserved prefix. */
const smokeRecordsOf = (tenantId: string) =>
  memoryDbCount(
    'SELECT count(*) AS n FROM memory_record WHERE tenant_id = $1 AND starts_with(namespace, $2)',
    [tenantId, RESERVED_NAMESPACE_PREFIX],
  );

const refused = (status: number, code: string) => ({
  status,
  body: { error: expect.any(String), retryable: false, details: { code, request_id: expect.any(String) } },
});

/** Requests per billable operation in the tenant's usage. */
const requestsByOperation = (res: Res) =>
  Object.fromEntries(
    (res.body.operations as Array<{ operation: string; requests: number }>).map((o) => [
      o.operation,
      o.requests,
    ]),
  );

/** The monitoring state the status route must derive from the tenant's anomaly report. */
async function expectMonitoringMatchesAnomalies(key: string, status: Res, emptyState: 'ok' | 'no_data') {
  const report = await t.api.get(ANOMALIES, {
    key,
    query: { window_minutes: String(STATUS_WINDOW_MINUTES) },
  });
  expect(report.status).toBe(200);
  const names = (report.body.anomalies as Array<{ name: string }>).map((a) => a.name);
  expect(status.body.monitoring).toEqual({
    state: names.length > 0 ? 'anomalous' : emptyState,
    anomalies: names.map((name) => expect.objectContaining({ name, severity: expect.any(String) })),
    anomaly_count: report.body.anomaly_count,
    window_minutes: STATUS_WINDOW_MINUTES,
    request_records: { queued: expect.any(Number), dropped: 0 },
  });
  expect(status.body.monitoring.request_records.queued).toBeGreaterThanOrEqual(0);
}

/** A gateway of its own on the stack's bus and database, with other settings. */
async function gatewayWith(env: Record<string, string>) {
  const gateway = await startGateway(
    GatewayConfigSchema.parse({
      GATEWAY_PORT: '0',
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_DATABASE_URL: t.stack.env.gatewayDbUrl,
      NATS_URL: t.stack.env.natsUrl,
      GATEWAY_SECRET_KEY: t.stack.secretKey,
      ...env,
    }),
    testLogger(),
  );
  return { gateway, api: await createApi(gateway.url) };
}

describe('GET /api/v1/infrastructure/status', () => {
  it('when called with an API key, then every service is available with runtime, deployment, monitoring and granted consent', async () => {
    const tenant = await createTenant();
    // Some history first, stored, so the window holds data for this tenant.
    const write = await t.api.write(tenant.api_key, writeBody(uniqueNamespace(), 'status note'), uniqueKey());
    expect(write.status).toBe(200);
    await eventsFor(t.api, tenant.api_key, [write.headers['x-request-id'] as string]);

    const res = await t.api.get(STATUS, { key: tenant.api_key });

    expect(res).toMatchObject({
      status: 200,
      body: {
        status: 'ok',
        available: true,
        execution_mode: 'mock',
        provider: RUNTIME.provider,
        model_version: RUNTIME.model_version,
        deployment_version: 'dev',
        environment: 'development',
        contract_version: 'v1',
        schema_version: SCHEMA_VERSION,
        checked_at: timestamp,
        production_ready: false,
        services: everyServiceAvailable,
        consent: { state: 'granted', scope: 'private_memory' },
        request_id: res.headers['x-request-id'],
      },
    });
    expect(Date.parse(res.body.checked_at)).not.toBeNaN();
    await expectMonitoringMatchesAnomalies(tenant.api_key, res, 'ok');
  });

  it('when called with the owner’s session, then the same answer for the owner, consent granted', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);

    const res = await t.api.get(STATUS, { key: session });

    expect(res).toMatchObject({
      status: 200,
      body: {
        status: 'ok',
        available: true,
        execution_mode: 'mock',
        provider: RUNTIME.provider,
        model_version: RUNTIME.model_version,
        schema_version: SCHEMA_VERSION,
        services: everyServiceAvailable,
        monitoring: { window_minutes: STATUS_WINDOW_MINUTES, request_records: { dropped: 0 } },
        consent: { state: 'granted', scope: 'private_memory' },
      },
    });
  });

  it('when the tenant was created without consent, then consent is missing, by key and by session; with no history, monitoring says no_data', async () => {
    const tenant = await createTenant({ consent: false });

    // The tenant's first request: nothing of it is in the window yet.
    const byKey = await t.api.get(STATUS, { key: tenant.api_key });
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const bySession = await t.api.get(STATUS, { key: session });

    expect(byKey).toMatchObject({
      status: 200,
      body: { status: 'ok', consent: { state: 'missing', scope: 'private_memory' } },
    });
    expect(bySession).toMatchObject({
      status: 200,
      body: { status: 'ok', consent: { state: 'missing', scope: 'private_memory' } },
    });
    await expectMonitoringMatchesAnomalies(tenant.api_key, byKey, 'no_data');
  });

  it('when consent is revoked through the control plane, then status reports it missing', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const before = await t.api.get(STATUS, { key: tenant.api_key });

    const revoked = await t.api.post(`${CONSENT}/revoke`, { key: session });
    const after = await t.api.get(STATUS, { key: tenant.api_key });

    expect(before.body.consent).toEqual({ state: 'granted', scope: 'private_memory' });
    expect(revoked).toMatchObject({ status: 200, body: { state: 'revoked' } });
    expect(after).toMatchObject({
      status: 200,
      body: { consent: { state: 'missing', scope: 'private_memory' } },
    });
  });

  it('when no credential is sent, then 401', async () => {
    const res = await t.api.get(STATUS);
    expect(res).toMatchObject(refused(401, 'authentication_required'));
  });
});

describe('while the telemetry service is stopped', () => {
  it('then status and health answer 200 degraded (telemetry is not what writes need) with monitoring unavailable, events is a retryable 503/504; requests made meanwhile reach the history once it is back', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const ids = {
      write: `outage-write-${randomUUID()}`,
      recall: `outage-recall-${randomUUID()}`,
      usage: `outage-usage-${randomUUID()}`,
      status: `outage-status-${randomUUID()}`,
    };
    const headers = (id: string) => ({ 'X-Request-Id': id });

    await t.stack.stopTelemetry();
    try {
      const status = await t.api.get(STATUS, { key: tenant.api_key, headers: headers(ids.status) });
      const health = await t.api.get(HEALTH);
      const events = await t.api.get(EVENTS, { key: tenant.api_key });
      const write = await t.api.write(
        tenant.api_key,
        writeBody(namespace, 'written while telemetry is away'),
        uniqueKey(),
        headers(ids.write),
      );
      const recall = await t.api.post('/api/v1/memory/recall', {
        key: tenant.api_key,
        body: recallBody(namespace, 'telemetry away'),
        headers: headers(ids.recall),
      });
      const usage = await t.api.get(USAGE, { key: tenant.api_key, headers: headers(ids.usage) });

      expect(status).toMatchObject({
        status: 200,
        body: {
          status: 'degraded',
          available: true,
          services: {
            memory: { available: true },
            billing: { available: true },
            telemetry: { available: false },
            template: { available: true },
            gateway_store: { available: true },
          },
          consent: { state: 'granted', scope: 'private_memory' },
        },
      });
      expect(status.body.monitoring).toEqual({
        state: 'unavailable',
        anomalies: [],
        anomaly_count: null,
        window_minutes: STATUS_WINDOW_MINUTES,
        request_records: { queued: expect.any(Number), dropped: 0 },
      });
      expect(health).toMatchObject({
        status: 200,
        body: {
          status: 'degraded',
          available: true,
          services: { telemetry: { available: false, required: false } },
        },
      });
      expect([503, 504]).toContain(events.status);
      expect(events.body).toMatchObject({
        error: expect.any(String),
        retryable: true,
        details: {
          code: expect.stringMatching(/^(service_unavailable|upstream_timeout)$/),
          request_id: events.headers['x-request-id'],
        },
      });
      expect([write.status, recall.status, usage.status]).toEqual([200, 200, 200]);
      // Nobody consumes the records now: none of these requests is stored yet.
      expect(
        await telemetryDbRows('SELECT request_id FROM request_record WHERE request_id = ANY($1)', [
          Object.values(ids),
        ]),
      ).toEqual([]);
    } finally {
      await t.stack.startTelemetry();
    }

    await expect
      .poll(async () => (await t.api.get(EVENTS, { key: tenant.api_key })).status, { timeout: 10_000 })
      .toBe(200);
    const history = await eventsFor(t.api, tenant.api_key, Object.values(ids));
    const byId = (id: string) => history.filter((e) => e.request_id === id);
    for (const id of Object.values(ids)) expect(byId(id), id).toHaveLength(1);
    expect(byId(ids.write)[0]).toMatchObject({ operation: 'memory.write', status: 200, state: 'retained' });
    expect(byId(ids.recall)[0]).toMatchObject({ operation: 'memory.recall', status: 200 });
    expect(byId(ids.usage)[0]).toMatchObject({ route: USAGE, status: 200 });
    expect(byId(ids.status)[0]).toMatchObject({ route: STATUS, status: 200 });

    const recovered = await t.api.get(STATUS, { key: tenant.api_key });
    expect(recovered).toMatchObject({
      status: 200,
      body: { status: 'ok', available: true, services: everyServiceAvailable },
    });
    expect(recovered.body.monitoring.state).not.toBe('unavailable');
  });
});

describe('POST /api/v1/infrastructure/smoke-test', () => {
  it('when an API key brings its tenant’s live operator token, then write, recall and delete pass in a reserved namespace that is left empty', async () => {
    const tenant = await operatorTenant();

    const res = await smokeTest(tenant.api_key, tenant.operatorToken);

    expect(res).toMatchObject({
      status: 200,
      body: {
        contract_version: 'v1',
        request_id: res.headers['x-request-id'],
        outcome: 'passed',
        namespace: expect.stringMatching(/^tm-smoke-test\/.+/),
        metered: true,
      },
    });
    expect(res.body.steps.map((s: { step: string; outcome: string }) => [s.step, s.outcome])).toEqual([
      ['write', 'passed'],
      ['recall', 'passed'],
      ['delete', 'passed'],
    ]);
    expect(await recordsInNamespace(tenant.tenant_id, res.body.namespace)).toBe(0);
    expect(
      await memoryDbCount(
        'SELECT count(*) AS n FROM idempotency_entry WHERE tenant_id = $1 AND namespace = $2',
        [tenant.tenant_id, res.body.namespace],
      ),
    ).toBe(0);
    expect(await smokeRecordsOf(tenant.tenant_id)).toBe(0);
    const [event] = (await eventsFor(t.api, tenant.api_key, [res.body.request_id])).filter(
      (e) => e.request_id === res.body.request_id,
    );
    expect(event).toMatchObject({
      route: SMOKE_TEST,
      operation: 'infrastructure.smoke_test',
      status: 200,
      outcome: 'accepted',
      state: 'passed',
    });
  });

  it('when a smoke test passes, then usage shows one memory.write and one memory.recall more, from the billing ledger', async () => {
    const tenant = await operatorTenant();
    const usage = () => t.api.get(USAGE, { key: tenant.api_key, query: { window_minutes: '60' } });
    const before = await usage();
    expect(before).toMatchObject({
      status: 200,
      body: { state: 'no_data', request_volume: 0, operations: [] },
    });

    const res = await smokeTest(tenant.api_key, tenant.operatorToken);
    expect(res.status).toBe(200);
    await t.stack.memory.flushOutbox();

    await expect
      .poll(async () => (await usage()).body.request_volume, { timeout: 10_000, interval: 100 })
      .toBeGreaterThanOrEqual(2);
    const after = await usage();
    expect(after).toMatchObject({ status: 200, body: { state: 'billable', request_volume: 2 } });
    expect(requestsByOperation(after)).toEqual({ 'memory.write': 1, 'memory.recall': 1 });
  });

  it('when a smoke test passes, then its request record carries the units the billing ledger charged for it', async () => {
    const tenant = await operatorTenant();
    const usage = () => t.api.get(USAGE, { key: tenant.api_key, query: { window_minutes: '60' } });

    const res = await smokeTest(tenant.api_key, tenant.operatorToken);
    await t.stack.memory.flushOutbox();
    await expect
      .poll(async () => (await usage()).body.request_volume, { timeout: 10_000, interval: 100 })
      .toBe(2);
    const charged = (await usage()).body.operations as Array<{ units: number }>;
    const [event] = (await eventsFor(t.api, tenant.api_key, [res.body.request_id])).filter(
      (e) => e.request_id === res.body.request_id,
    );

    expect(res.status).toBe(200);
    const units = charged.reduce((sum, o) => sum + o.units, 0);
    expect(units).toBeGreaterThan(0);
    expect(event).toMatchObject({
      route: SMOKE_TEST,
      status: 200,
      outcome: 'accepted',
      state: 'passed',
      units,
      billing_state: 'billable',
    });
  });

  it('when no operator token is sent, or one that is not a token, then 403 operator_capability_required and nothing is written', async () => {
    const tenant = await operatorTenant();

    const without = await smokeTest(tenant.api_key, undefined);
    const malformed = await smokeTest(tenant.api_key, 'not-an-operator-token');

    expect(without).toMatchObject(refused(403, 'operator_capability_required'));
    expect(malformed).toMatchObject(refused(403, 'operator_capability_required'));
    expect(without.body).not.toHaveProperty('steps');
    expect(await smokeRecordsOf(tenant.tenant_id)).toBe(0);
  });

  it('when the operator token belongs to another tenant, then 403 operator_capability_required, though that token works for its own tenant', async () => {
    const tenant = await operatorTenant();
    const other = await operatorTenant();

    const crossed = await smokeTest(tenant.api_key, other.operatorToken);
    const own = await smokeTest(other.api_key, other.operatorToken);

    expect(crossed).toMatchObject(refused(403, 'operator_capability_required'));
    expect(own).toMatchObject({ status: 200, body: { outcome: 'passed' } });
    expect(await smokeRecordsOf(tenant.tenant_id)).toBe(0);
  });

  it('when the operator token has been revoked, then 403 operator_capability_required where it passed before', async () => {
    const tenant = await operatorTenant();
    const before = await smokeTest(tenant.api_key, tenant.operatorToken);

    const revoked = await t.api.post(`${OPERATOR_TOKENS}/${tenant.operatorTokenId}/revoke`, {
      key: tenant.session,
    });
    const after = await smokeTest(tenant.api_key, tenant.operatorToken);

    expect(before).toMatchObject({ status: 200, body: { outcome: 'passed' } });
    expect(revoked).toMatchObject({ status: 200, body: { id: tenant.operatorTokenId, status: 'revoked' } });
    expect(after).toMatchObject(refused(403, 'operator_capability_required'));
  });

  it('when the key’s user never consented, then 403 consent_required and nothing is written', async () => {
    const tenant = await operatorTenant({ consent: false });

    const res = await smokeTest(tenant.api_key, tenant.operatorToken);

    expect(res).toMatchObject(refused(403, 'consent_required'));
    expect(await smokeRecordsOf(tenant.tenant_id)).toBe(0);
  });

  it('when consent is revoked through the control plane, then 403 consent_required; granted again, then it passes', async () => {
    const tenant = await operatorTenant();

    const revoked = await t.api.post(`${CONSENT}/revoke`, { key: tenant.session });
    const whileRevoked = await smokeTest(tenant.api_key, tenant.operatorToken);
    const granted = await t.api.post(`${CONSENT}/grant`, { key: tenant.session });
    const afterGrant = await smokeTest(tenant.api_key, tenant.operatorToken);

    expect(revoked).toMatchObject({ status: 200, body: { state: 'revoked' } });
    expect(whileRevoked).toMatchObject(refused(403, 'consent_required'));
    expect(granted).toMatchObject({ status: 200, body: { state: 'granted' } });
    expect(afterGrant).toMatchObject({ status: 200, body: { outcome: 'passed' } });
  });

  it('when a session is sent instead of an API key, then 403 credential_not_accepted; with no credential, 401', async () => {
    const tenant = await operatorTenant();

    const bySession = await smokeTest(tenant.session, tenant.operatorToken);
    const anonymous = await smokeTest(undefined, tenant.operatorToken);

    expect(bySession).toMatchObject(refused(403, 'credential_not_accepted'));
    expect(anonymous).toMatchObject(refused(401, 'authentication_required'));
    expect(await smokeRecordsOf(tenant.tenant_id)).toBe(0);
  });

  it('when the deployment’s policy disables smoke tests (explicitly, or by default in production), then 403 policy_denied with every other precondition met', async () => {
    const tenant = await operatorTenant();
    const cases: Array<{ env: Record<string, string>; expected: object }> = [
      { env: { SMOKE_TEST_POLICY: 'disabled' }, expected: refused(403, 'policy_denied') },
      { env: { DEPLOYMENT_ENVIRONMENT: 'production' }, expected: refused(403, 'policy_denied') },
      // The policy, not the environment, decides: enabled explicitly, production runs it too.
      {
        env: { DEPLOYMENT_ENVIRONMENT: 'production', SMOKE_TEST_POLICY: 'enabled' },
        expected: { status: 200, body: { outcome: 'passed' } },
      },
    ];
    for (const { env, expected } of cases) {
      const other = await gatewayWith(env);
      try {
        const res = await smokeTest(tenant.api_key, tenant.operatorToken, other.api);
        expect(res, JSON.stringify(env)).toMatchObject(expected);
      } finally {
        await other.gateway.stop();
      }
    }
    // The stack's own gateway (development, policy unset) runs it.
    expect(await smokeTest(tenant.api_key, tenant.operatorToken)).toMatchObject({
      status: 200,
      body: { outcome: 'passed' },
    });
    expect(await smokeRecordsOf(tenant.tenant_id)).toBe(0);
  });

  it('when the memory service is stopped, then 503 with outcome failed, the write failed, recall skipped, retryable; once it is back, it passes again', async () => {
    const tenant = await operatorTenant();

    await t.stack.stopMemory();
    let res: Res;
    try {
      res = await smokeTest(tenant.api_key, tenant.operatorToken);
    } finally {
      await t.stack.startMemory();
    }

    expect(res).toMatchObject({
      status: 503,
      body: {
        contract_version: 'v1',
        outcome: 'failed',
        namespace: expect.stringMatching(/^tm-smoke-test\//),
        metered: true,
        error: expect.any(String),
        retryable: true,
        details: { code: 'service_unavailable', request_id: res.headers['x-request-id'] },
      },
    });
    const steps = Object.fromEntries(
      res.body.steps.map((s: { step: string; outcome: string }) => [s.step, s.outcome]),
    );
    expect(steps).toMatchObject({ write: 'failed', recall: 'skipped' });
    expect(res.body.steps.find((s: { step: string }) => s.step === 'recall')).toMatchObject({
      latency_ms: null,
    });
    await expect
      .poll(async () => (await smokeTest(tenant.api_key, tenant.operatorToken)).body.outcome, {
        timeout: 10_000,
        interval: 200,
      })
      .toBe('passed');
    expect(await smokeRecordsOf(tenant.tenant_id)).toBe(0);
  });
});

describe('the reserved smoke-test namespace on the public memory routes', () => {
  const reserved = () => `${RESERVED_NAMESPACE_PREFIX}${randomUUID()}`;

  it.each([
    [
      'POST /api/v1/memory/write',
      (key: string, ns: string) => t.api.write(key, writeBody(ns, 'sneaky'), uniqueKey()),
    ],
    ['POST /api/v1/memory/recall', (key: string, ns: string) => t.api.recall(key, recallBody(ns, 'sneaky'))],
    ['DELETE /api/v1/memory', (key: string, ns: string) => t.api.deleteNamespace(key, ns)],
  ])(
    'when %s names a namespace under tm-smoke-test/, then 400 validation_failed naming namespace',
    async (_route, send) => {
      const tenant = await createTenant();
      const namespace = reserved();

      const res = await send(tenant.api_key, namespace);

      expect(res).toMatchObject(refused(400, 'validation_failed'));
      expect(res.body.details.fields.map((f: { path: string }) => f.path)).toEqual(['namespace']);
      expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
    },
  );

  it('when a namespace only resembles the prefix, then it is an ordinary namespace', async () => {
    const tenant = await createTenant();
    const namespace = `tm-smoke-test-${randomUUID()}`;

    const res = await t.api.write(tenant.api_key, writeBody(namespace, 'an ordinary note'), uniqueKey());

    expect(res).toMatchObject({ status: 200, body: { state: 'retained' } });
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(1);
  });
});
