import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import type { RequestEvent } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { billingSteps, CHARGES } from '../support/billing.js';
import { EVENTUALLY, eventually } from '../support/eventually.js';
import { createTenant, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';
import { eventsFor, eventsWhen, telemetryDbRows } from '../support/telemetry.js';

// What a client written strictly from the spec trips on: the spec's billing vocabulary, an
// operation on every record, replays that bill nothing, route templates only, the caller's request
// id kept, `contract_version` on every answer, and a release record.
const t = useStack();
const { usage } = billingSteps(t);
const rid = (label: string) => `${label}-${randomUUID()}`;
const byId = (events: RequestEvent[], id: string) => events.filter((e) => e.request_id === id);

describe('the spec billing vocabulary (billable, no_data, void)', () => {
  it('when a window holds nothing, then billable charges, then only voided ones, then usage says no_data, billable, void', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);

    const empty = await usage(tenant.api_key);
    const write = await t.api.write(
      tenant.api_key,
      writeBody(uniqueNamespace(), 'one billable note'),
      uniqueKey(),
    );
    const billable = await eventually(async () => {
      const res = await usage(tenant.api_key);
      expect(res.body.request_volume).toBe(1);
      return res;
    });
    const charges = await t.api.get(CHARGES, { key: session });
    const voided = await t.api.post(`${CHARGES}/${charges.body.data[0].id}/void`, {
      key: session,
      body: { reason: 'test of the vocabulary' },
    });
    const afterVoid = await usage(tenant.api_key);

    expect(write.status).toBe(200);
    expect(voided.status).toBe(200);
    expect([empty.body.state, billable.body.state, afterVoid.body.state]).toEqual([
      'no_data',
      'billable',
      'void',
    ]);
    expect(afterVoid).toMatchObject({
      status: 200,
      body: { contract_version: 'v1', state: 'void', request_volume: 1, recorded_charge_usd: 0 },
    });
  });
});

describe('request records: operation, units and billing state', () => {
  it('when a write is replayed, then its record bills nothing (0 units, no_data) while the original is billable', async () => {
    const tenant = await createTenant();
    const body = writeBody(uniqueNamespace(), 'a note written twice');
    const key = uniqueKey();
    const ids = { first: rid('first'), replay: rid('replay') };

    const first = await t.api.write(tenant.api_key, body, key, { 'X-Request-Id': ids.first });
    const replay = await t.api.write(tenant.api_key, body, key, { 'X-Request-Id': ids.replay });

    expect(first).toMatchObject({ status: 200, body: { idempotency_outcome: 'Accepted' } });
    // The replay answers the original result, billable block and all (the spec: billing not duplicated).
    expect(replay).toMatchObject({
      status: 200,
      body: { idempotency_outcome: 'Replayed', usage: { billing_state: 'billable', operation_units: 1 } },
    });
    const events = await eventsFor(t.api, tenant.api_key, [ids.first, ids.replay]);
    const record = (id: string) =>
      byId(events, id).map(({ operation, units, billing_state, state }) => ({
        operation,
        units,
        billing_state,
        state,
      }));
    expect(record(ids.first)).toEqual([
      { operation: 'memory.write', units: 1, billing_state: 'billable', state: 'retained' },
    ]);
    expect(record(ids.replay)).toEqual([
      { operation: 'memory.write', units: 0, billing_state: 'no_data', state: 'retained' },
    ]);
  });

  it('when control, infrastructure and template routes are called, then each record names its operation, in the billing vocabulary', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const calls = [
      ['GET', '/api/v1/control/account', session, 'control.account.get'],
      ['GET', '/api/v1/control/api-keys', session, 'control.api_keys.list'],
      ['GET', '/api/v1/control/consent', session, 'control.consent.get'],
      ['GET', '/api/v1/control/billing/charges', session, 'control.billing.charges.list'],
      ['GET', '/api/v1/infrastructure/usage', tenant.api_key, 'infrastructure.usage'],
      ['GET', '/api/v1/infrastructure/metrics', tenant.api_key, 'infrastructure.metrics'],
      ['GET', '/api/v1/infrastructure/status', tenant.api_key, 'infrastructure.status'],
      ['GET', '/v1/templates', tenant.api_key, 'template.list'],
    ] as const;

    const sent = [];
    for (const [, path, key, operation] of calls) {
      const id = rid(operation);
      const res = await t.api.get(path, { key, headers: { 'X-Request-Id': id } });
      expect(res.status, path).toBe(200);
      sent.push({ id, path, operation });
    }

    const events = await eventsFor(
      t.api,
      tenant.api_key,
      sent.map((s) => s.id),
    );
    expect(
      sent.map(({ id }) =>
        byId(events, id).map((e) => ({
          operation: e.operation,
          route: e.route,
          units: e.units,
          billing_state: e.billing_state,
        })),
      ),
    ).toEqual(
      sent.map(({ path, operation }) => [{ operation, route: path, units: 0, billing_state: 'no_data' }]),
    );
  });
});

describe('route keys: no raw paths in records or rollups', () => {
  it('when a signed-in user calls 50 distinct unknown ids and 50 unknown paths, then records and rollups hold one route key each', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const tag = randomUUID().slice(0, 8);

    const statuses = [];
    for (let i = 0; i < 50; i++) {
      const rotate = await t.api.post(`/api/v1/control/api-keys/key-${tag}-${i}/rotate`, { key: session });
      const unknown = await t.api.get(`/api/v1/control/nothing-${tag}-${i}`, { key: session });
      statuses.push(rotate.status, unknown.status);
    }

    expect(new Set(statuses)).toEqual(new Set([404]));
    const notFound = (all: RequestEvent[]) => all.filter((e) => e.status === 404);
    const events = notFound(await eventsWhen(t.api, tenant.api_key, (all) => notFound(all).length >= 100));
    const keys = new Set(events.map((e) => `${e.method} ${e.route} ${e.operation}`));
    expect([...keys].sort()).toEqual([
      'GET (unmatched) null',
      'POST /api/v1/control/api-keys/{id}/rotate control.api_keys.rotate',
    ]);
    // The rollups, which metrics and anomalies read, key by operation (or method and route); besides
    // these two keys the tenant has only its login and the events reads above.
    await expect
      .poll(
        () =>
          telemetryDbRows<{ operation: string; requests: number }>(
            `SELECT operation, sum(requests)::int AS requests FROM request_rollup WHERE tenant_id = $1
              AND operation NOT IN ('control.sessions.create', 'infrastructure.events')
              GROUP BY operation ORDER BY operation`,
            [tenant.tenant_id],
          ),
        EVENTUALLY,
      )
      .toEqual([
        { operation: 'GET (unmatched)', requests: 50 },
        { operation: 'control.api_keys.rotate', requests: 50 },
      ]);
  });
});

describe('X-Request-Id', () => {
  it('when a client sends a 200-character id with spaces and punctuation, then it is kept, echoed and recorded', async () => {
    const tenant = await createTenant();
    const id = `trace=${randomUUID()}; span="a/b" & more `.padEnd(200, '~');

    const res = await t.api.write(tenant.api_key, writeBody(uniqueNamespace(), 'kept id'), uniqueKey(), {
      'X-Request-Id': id,
    });

    expect(res).toMatchObject({ status: 200, body: { request_id: id } });
    expect(res.headers['x-request-id']).toBe(id);
    const events = await eventsFor(t.api, tenant.api_key, [id]);
    expect(byId(events, id)).toHaveLength(1);
  });

  it.each([
    ['201 characters', 'x'.repeat(201)],
    ['a character outside ASCII', `caf\u00e9-${randomUUID()}`],
  ])('when a client sends an id of %s, then 400 naming the header, never a silent swap', async (_, id) => {
    const tenant = await createTenant();

    const res = await t.api.write(tenant.api_key, writeBody(uniqueNamespace(), 'refused id'), uniqueKey(), {
      'X-Request-Id': id,
    });

    expect(res).toMatchObject({
      status: 400,
      body: {
        contract_version: 'v1',
        error: 'Invalid X-Request-Id header: must be 1–200 printable ASCII characters',
        retryable: false,
        request_id: expect.stringMatching(/^req_/),
        details: {
          code: 'validation_failed',
          fields: [{ path: 'X-Request-Id', message: 'must be 1–200 printable ASCII characters' }],
        },
      },
    });
    expect(res.headers['x-request-id']).toBe(res.body.request_id);
  });
});

describe('contract_version on every answer under /api/v1 and /v1', () => {
  it('when errors, control-plane, template and memory answers come back, then each carries contract_version v1', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const namespace = uniqueNamespace();

    const answers = {
      unauthenticated: await t.api.write('', writeBody(namespace, 'no key')),
      unmatched: await t.api.get('/api/v1/nothing-here', { key: tenant.api_key }),
      account: await t.api.get('/api/v1/control/account', { key: session }),
      keys: await t.api.get('/api/v1/control/api-keys', { key: session }),
      templates: await t.api.get('/v1/templates', { key: tenant.api_key }),
      memory: await t.api.post('/v1/memories', {
        key: tenant.api_key,
        body: { marketplace_template_id: 'task', namespace, data: { title: 'Versioned' } },
      }),
      marketplaceMissing: await t.api.get('/v1/marketplace/templates/no-such-template', {
        key: tenant.api_key,
      }),
    };

    expect(
      Object.fromEntries(
        Object.entries(answers).map(([name, res]) => [name, [res.status, res.body.contract_version]]),
      ),
    ).toEqual({
      unauthenticated: [401, 'v1'],
      unmatched: [404, 'v1'],
      account: [200, 'v1'],
      keys: [200, 'v1'],
      templates: [200, 'v1'],
      memory: [201, 'v1'],
      marketplaceMissing: [404, 'v1'],
    });
  });

  it('when a chat call fails, then the error keeps the shape OpenAI clients read, without contract_version', async () => {
    const res = await t.api.post('/v1/chat/completions', { body: { model: 'tm-standard-1', messages: [] } });

    expect(res).toMatchObject({
      status: 401,
      body: { error: { message: expect.any(String), type: 'authentication_error' } },
    });
    expect(res.body).not.toHaveProperty('contract_version');
  });

  it("when the OpenAPI document is read, then a request event's billing_state is billable or no_data, never void", async () => {
    const doc = await t.api.get('/api/v1/openapi.json');
    // A record is written when its request ends: a charge voided later shows in charges and usage only.
    expect(doc).toMatchObject({
      status: 200,
      body: {
        components: {
          schemas: { RequestEvent: { properties: { billing_state: { enum: ['billable', 'no_data'] } } } },
        },
      },
    });
  });

  it('when the OpenAPI document is read, then every JSON answer of every versioned route requires contract_version', async () => {
    const doc = (await t.api.get('/api/v1/openapi.json')).body as {
      paths: Record<
        string,
        Record<
          string,
          { responses?: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> }
        >
      >;
      components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> };
    };
    const openAiShaped = ['/v1/chat/completions', '/v1/models', '/v1/models/{model}', '/api/v1/openapi.json'];
    const missing = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      if (openAiShaped.includes(path)) continue;
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          const schema = response.content?.['application/json']?.schema;
          if (!schema) continue;
          const resolved = schema.$ref
            ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]
            : (schema as { required?: string[] });
          if (!resolved?.required?.includes('contract_version')) missing.push(`${method} ${path} ${status}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});

/** The latest migration folder of each service, as the launcher would have applied it. */
const latestMigration = (service: string) =>
  readdirSync(new URL(`../../../services/${service}/prisma/migrations`, import.meta.url))
    .filter((name) => /^\d/.test(name))
    .sort()
    .at(-1);

describe('GET /api/v1/infrastructure/release', () => {
  /** The record both views share: versions, the manifest and health's status, for this stack. */
  const releaseOf = (res: { body: { deployment_version: string; environment: string } }, schema: string) => ({
    contract_version: 'v1',
    deployment_version: expect.any(String),
    environment: expect.any(String),
    schema_version: schema,
    health: {
      status: 'ok',
      available: true,
      execution_mode: 'mock',
      deployment_version: res.body.deployment_version,
      environment: res.body.environment,
      contract_version: 'v1',
      schema_version: schema,
      checked_at: expect.any(String),
      production_ready: false,
    },
    recorded_at: expect.any(String),
  });
  /** The record once every service answers its probe in time (a loaded machine starts slowly). */
  const releaseOnceHealthy = (headers: Record<string, string>) =>
    eventually(async () => {
      const res = await t.api.get('/api/v1/infrastructure/release', { headers });
      expect(res.body.health?.status).toBe('ok');
      return res;
    });
  const ENTRIES = {
    gateway_store: true,
    memory: true,
    billing: false,
    telemetry: false,
    template: false,
    webhooks: false,
  } as const;

  it('when asked without a credential, then the public view: versions, capabilities and health by entry, without migrations or readings', async () => {
    const id = rid('release');

    const res = await releaseOnceHealthy({ 'X-Request-Id': id });
    const capabilities = await t.api.get('/api/v1/infrastructure/capabilities');

    expect(res.status).toBe(200);
    const shared = releaseOf(res, capabilities.body.schema_version);
    expect(res.body).toEqual({
      ...shared,
      view: 'public',
      capabilities: capabilities.body,
      health: {
        ...shared.health,
        services: Object.fromEntries(
          Object.entries(ENTRIES).map(([name, required]) => [name, { available: true, required }]),
        ),
      },
      request_id: id,
    });
    expect(Date.parse(res.body.recorded_at)).not.toBeNaN();
  });

  it('when asked with a live operator token, then the operator view adds each database’s migration and health’s readings', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const issued = await t.api.post('/api/v1/control/operator-tokens', {
      key: session,
      body: { name: 'release' },
    });
    expect(issued.status).toBe(201);
    const id = rid('release');

    const res = await releaseOnceHealthy({ 'X-Request-Id': id, 'X-Operator-Token': issued.body.token });
    const capabilities = await t.api.get('/api/v1/infrastructure/capabilities');

    expect(res.status).toBe(200);
    const shared = releaseOf(res, capabilities.body.schema_version);
    expect(res.body).toEqual({
      ...shared,
      view: 'operator',
      schema_versions: {
        gateway_store: latestMigration('gateway'),
        memory: latestMigration('memory'),
        billing: latestMigration('billing'),
        telemetry: latestMigration('telemetry'),
        template: latestMigration('template'),
        webhooks: latestMigration('webhooks'),
      },
      capabilities: capabilities.body,
      health: {
        ...shared.health,
        services: Object.fromEntries(
          Object.entries(ENTRIES).map(([name, required]) => [
            name,
            expect.objectContaining({ available: true, required }),
          ]),
        ),
      },
      request_id: id,
    });
    // The readings the public view leaves out: the memory service's database latency, for one.
    expect(res.body.health.services.memory.dependencies.database).toEqual({
      available: true,
      latency_ms: expect.any(Number),
    });
  });

  it('when the operator token sent is not a live one, then 403 operator_capability_required, not a quiet public view', async () => {
    const res = await t.api.get('/api/v1/infrastructure/release', {
      headers: { 'X-Operator-Token': `tmo_${'a'.repeat(8)}_${'b'.repeat(40)}` },
    });

    expect(res).toMatchObject({
      status: 403,
      body: {
        error: 'The release record’s operator view needs a valid operator token (X-Operator-Token)',
        retryable: false,
        details: { code: 'operator_capability_required' },
      },
    });
    expect(res.body).not.toHaveProperty('schema_versions');
  });
});
