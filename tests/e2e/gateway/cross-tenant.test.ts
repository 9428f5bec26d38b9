import { beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../support/api.js';
import {
  identifyingIn,
  LISTS,
  stateOf,
  type Target,
  type Tenant,
  tenantWithOneOfEverything,
} from '../support/cross-tenant-fixture.js';
import {
  type OpenApiDocument,
  routesTakingNamespace,
  routesWithPathParameters,
} from '../support/documented-routes.js';
import { recallBody, uniqueKey, writeBody } from '../support/factories.js';
import { importSteps } from '../support/imports.js';
import { handMadeExport, restore } from '../support/restores.js';
import { useStack } from '../support/stack.js';

const t = useStack();
const { upload } = importSteps(t);

const CONTROL = '/api/v1/control';
type Response = Awaited<ReturnType<Api['get']>>;
type Send = (api: Api, path: string, options: { key: string; body?: object }) => Promise<Response>;
const METHODS: Record<string, Send> = {
  GET: (api, path, o) => api.get(path, o),
  POST: (api, path, o) => api.post(path, o),
  PUT: (api, path, o) => api.put(path, o),
  PATCH: (api, path, o) => api.patch(path, o),
  DELETE: (api, path, o) => api.delete(path, o),
};

const KEYS: Target[] = ['bootstrapKey', 'extraKey'];
const USERS: Target[] = ['owner', 'member'];
const STORAGE: Target[] = ['managedStorage', 'customerStorage'];
const MEMORIES: Target[] = ['plainMemory', 'templateMemory', 'chatMemory'];
/**
 * Every route with a path parameter (a test below holds this table to the OpenAPI document), each
 * aimed at every one of A's objects it can name, with the credential the route takes (the control
 * plane a session, the rest an API key) and the most damaging body B could send.
 */
const ID_ROUTES: Array<{
  route: string;
  credential: 'session' | 'key';
  targets: Target[];
  body?: (b: Tenant) => object;
}> = [
  { route: 'GET /api/v1/control/users/{id}', credential: 'session', targets: USERS },
  {
    route: 'PATCH /api/v1/control/users/{id}',
    credential: 'session',
    targets: USERS,
    body: () => ({ status: 'disabled' }),
  },
  { route: 'GET /api/v1/control/api-keys/{id}', credential: 'session', targets: KEYS },
  {
    route: 'PATCH /api/v1/control/api-keys/{id}',
    credential: 'session',
    targets: KEYS,
    body: () => ({ name: 'renamed by B', permissions: ['telemetry:read'] }),
  },
  { route: 'POST /api/v1/control/api-keys/{id}/revoke', credential: 'session', targets: KEYS },
  { route: 'POST /api/v1/control/api-keys/{id}/rotate', credential: 'session', targets: KEYS },
  {
    route: 'PUT /api/v1/control/api-keys/{id}/storage-connection',
    credential: 'session',
    targets: KEYS,
    body: (b) => ({ storage_connection_id: b.ids.managedStorage }),
  },
  { route: 'DELETE /api/v1/control/api-keys/{id}/storage-connection', credential: 'session', targets: KEYS },
  { route: 'GET /api/v1/control/storage-connections/{id}', credential: 'session', targets: STORAGE },
  {
    route: 'PATCH /api/v1/control/storage-connections/{id}',
    credential: 'session',
    targets: STORAGE,
    body: () => ({ name: 'renamed by B', status: 'disabled' }),
  },
  {
    route: 'POST /api/v1/control/operator-tokens/{id}/revoke',
    credential: 'session',
    targets: ['operatorToken'],
  },
  {
    route: 'POST /api/v1/control/billing/charges/{id}/void',
    credential: 'session',
    targets: ['charge'],
    body: () => ({ reason: 'voided by B' }),
  },
  {
    route: 'GET /v1/templates/{template_name_or_id}',
    credential: 'key',
    targets: ['template', 'templateName'],
  },
  {
    route: 'PUT /v1/templates/{template_name_or_id}',
    credential: 'key',
    targets: ['template', 'templateName'],
    body: () => ({ description: 'changed by B', fields: [{ name: 'x', type: 'string' }] }),
  },
  { route: 'GET /v1/memories/{memory_id}', credential: 'key', targets: MEMORIES },
  { route: 'DELETE /v1/memories/{memory_id}', credential: 'key', targets: MEMORIES },
  { route: 'GET /v1/imports/{import_id}', credential: 'key', targets: ['importJob'] },
  {
    route: 'GET /api/v1/memory/deletions/{deletion_id}',
    credential: 'key',
    targets: ['namespaceDeletion'],
  },
  { route: 'POST /v1/imports/{import_id}/start', credential: 'key', targets: ['importJob'] },
  {
    route: 'GET /api/v1/control/webhook-endpoints/{id}',
    credential: 'session',
    targets: ['webhookEndpoint'],
  },
  {
    route: 'PATCH /api/v1/control/webhook-endpoints/{id}',
    credential: 'session',
    targets: ['webhookEndpoint'],
    body: () => ({ url: 'https://b.example.test/stolen', events: ['memory.retained'], include_text: true }),
  },
  {
    route: 'DELETE /api/v1/control/webhook-endpoints/{id}',
    credential: 'session',
    targets: ['webhookEndpoint'],
  },
  {
    route: 'POST /api/v1/control/webhook-endpoints/{id}/rotate-secret',
    credential: 'session',
    targets: ['webhookEndpoint'],
  },
  {
    route: 'GET /api/v1/control/webhook-endpoints/{id}/deliveries',
    credential: 'session',
    targets: ['webhookEndpoint'],
  },
  {
    // {id} is A's endpoint and {delivery_id} A's delivery (the send below fills both).
    route: 'POST /api/v1/control/webhook-endpoints/{id}/deliveries/{delivery_id}/redeliver',
    credential: 'session',
    targets: ['webhookEndpoint'],
  },
  { route: 'GET /v1/imports/{import_id}/failures', credential: 'key', targets: ['importJob'] },
  { route: 'GET /api/v1/memory/restore/{restore_id}', credential: 'key', targets: ['restoreJob'] },
  { route: 'GET /api/v1/memory/restore/{restore_id}/failures', credential: 'key', targets: ['restoreJob'] },
];
/** Routes with a path parameter that names nothing a tenant owns: the same answer for every tenant. */
const SHARED_BY_ALL_TENANTS: Record<string, string> = {
  'GET /v1/marketplace/templates/{marketplace_template_id}':
    'the marketplace catalogue is one for every tenant (seeded by migration); no tenant creates entries',
  'GET /v1/models/{model}': 'the model list is fixed and the same for every key',
};
const ID_ATTACKS = ID_ROUTES.flatMap(({ route, credential, targets, body }) =>
  targets.map((target) => ({ route, credential, target, body })),
);

/**
 * Every route that takes a namespace (a test below holds this table to the OpenAPI document): B's key
 * names A's namespace (or A's chat `memory_id`) and must reach only a partition of its own.
 * Ordered: reads and the delete first, while B's partition of that name is still empty.
 */
const NAMESPACE_CASES: Array<{
  route: string;
  what: string;
  send: (a: Tenant, b: Tenant) => Promise<Response>;
  expected: (a: Tenant) => object;
}> = [
  {
    route: 'POST /api/v1/memory/recall',
    what: "recalls A's namespace by name",
    send: (a, b) => t.api.recall(b.api_key, recallBody(a.namespace, 'private note', { top_k: 10 })),
    expected: (a) => ({ status: 200, body: { namespace: a.namespace, related: [] } }),
  },
  {
    route: 'GET /api/v1/infrastructure/export',
    what: "exports A's namespace by name",
    send: (a, b) =>
      t.api.get('/api/v1/infrastructure/export', { key: b.api_key, query: { namespace: a.namespace } }),
    expected: () => ({ status: 200, body: { complete: true, records: [], supersession_relations: [] } }),
  },
  {
    route: 'POST /v1/chat/completions',
    what: "continues A's conversation by its memory_id",
    send: (a, b) =>
      t.api.post('/v1/chat/completions', {
        key: b.api_key,
        body: {
          model: 'tm-nano-1',
          memory_id: a.conversation,
          messages: [{ role: 'user', content: 'private chat' }],
        },
      }),
    expected: () => ({
      status: 200,
      body: {
        choices: [{ message: { content: expect.stringContaining('I have no retained memory') } }],
        text_memory: { recalled_memory_ids: [] },
      },
    }),
  },
  {
    route: 'DELETE /api/v1/memory',
    what: "deletes A's namespace by name",
    send: (a, b) => t.api.deleteNamespace(b.api_key, a.namespace),
    expected: () => ({ status: 200, body: { state: 'no_data', deleted: 0 } }),
  },
  {
    route: 'POST /api/v1/memory/write',
    what: "writes into A's namespace with A's event id and idempotency key",
    send: (a, b) =>
      t.api.write(
        b.api_key,
        writeBody(a.namespace, 'written by B', { event_id: a.write.body.event.event_id }),
        a.write.idempotencyKey,
      ),
    expected: () => ({ status: 200, body: { state: 'retained', idempotency_outcome: 'Accepted' } }),
  },
  {
    route: 'POST /api/v1/memory/write/batch',
    what: "writes a batch into A's namespace",
    send: (a, b) =>
      t.api.post('/api/v1/memory/write/batch', {
        key: b.api_key,
        body: {
          contract_version: 'v1',
          operation: 'memory.write_batch',
          namespace: a.namespace,
          items: [
            { idempotency_key: uniqueKey(), event: writeBody(a.namespace, 'batch written by B').event },
          ],
        },
      }),
    expected: () => ({
      status: 200,
      body: {
        state: 'retained',
        item_counts: { total: 1, accepted: 1 },
        results: [{ index: 0, status: 200, body: { idempotency_outcome: 'Accepted' } }],
      },
    }),
  },
  {
    route: 'POST /api/v1/memory/restore',
    what: "restores an export into A's namespace",
    send: (a, b) =>
      restore(
        t.api,
        b.api_key,
        handMadeExport('file-of-b', [{ event_id: 'from-b', text: 'restored by B' }]),
        {
          namespace: a.namespace,
        },
      ),
    expected: (a) => ({
      status: 202,
      body: { namespace: a.namespace, from_namespace: 'file-of-b', total: 1 },
    }),
  },
  {
    route: 'POST /v1/memories',
    what: "creates a template memory in A's namespace",
    send: (a, b) =>
      t.api.post('/v1/memories', {
        key: b.api_key,
        body: { template_name: b.ids.templateName, namespace: a.namespace, data: { title: 'by B' } },
        headers: { 'Idempotency-Key': uniqueKey() },
      }),
    expected: () => ({ status: 201 }),
  },
  {
    route: 'POST /v1/imports',
    what: "imports into A's namespace",
    send: (a, b) => upload(b.api_key, { format: '{a}', namespace: a.namespace }, 'a\nby B\n'),
    expected: () => ({ status: 201 }),
  },
];

describe("OWASP API1: one tenant's credentials aimed at another tenant's objects", () => {
  let a: Tenant;
  let b: Tenant;
  let aBefore: Awaited<ReturnType<typeof stateOf>>;
  let bBefore: Awaited<ReturnType<typeof stateOf>>;
  // Made once for all attempts: each attempt must leave both tenants exactly as they were, and each
  // test checks that, so a successful attack fails where it happened.
  beforeAll(async () => {
    a = await tenantWithOneOfEverything(t, 'a');
    b = await tenantWithOneOfEverything(t, 'b');
    aBefore = await stateOf(t, a);
    bBefore = await stateOf(t, b);
  });

  /** The refusal every attempt gets: not found, as if A's object did not exist, and naming nothing of A's. */
  function expectRefusedBlind(res: Response) {
    expect(res).toMatchObject({ status: 404, body: { retryable: false, details: { code: 'not_found' } } });
    expect(identifyingIn(a, res.body)).toEqual([]);
  }

  async function expectBothUnchanged() {
    expect(await stateOf(t, a)).toEqual(aBefore);
    expect(await stateOf(t, b)).toEqual(bBefore);
  }

  it('then ID_ROUTES (or the shared list) covers every route with a path parameter in the OpenAPI document', async () => {
    const doc = (await t.api.get('/api/v1/openapi.json')).body as OpenApiDocument;

    const covered = [...ID_ROUTES.map((r) => r.route), ...Object.keys(SHARED_BY_ALL_TENANTS)];

    expect(covered.sort()).toEqual(routesWithPathParameters(doc).sort());
  });

  it('then NAMESPACE_CASES covers every route taking a namespace in the OpenAPI document', async () => {
    const doc = (await t.api.get('/api/v1/openapi.json')).body as OpenApiDocument;

    const covered = [...new Set(NAMESPACE_CASES.map((c) => c.route))];

    expect(covered.sort()).toEqual(routesTakingNamespace(doc).sort());
  });

  for (const { route, credential, target, body } of ID_ATTACKS) {
    it(`when B's ${credential} calls ${route} with A's ${target}, then 404 naming nothing of A's, and A keeps everything`, async () => {
      const [method = '', template = ''] = route.split(' ');
      const send = METHODS[method] as Send;

      const path = template
        .replace('{delivery_id}', a.ids.webhookDelivery)
        .replace(/\{[^}]+\}/, encodeURIComponent(a.ids[target]));
      const res = await send(t.api, path, {
        key: credential === 'session' ? b.session : b.api_key,
        ...(body ? { body: body(b) } : {}),
      });

      expectRefusedBlind(res);
      await expectBothUnchanged();
    });
  }

  // A's ids can also travel in a body, next to B's own objects.
  it.each([
    [
      "attaches A's storage connection to B's own key",
      () =>
        t.api.put(`${CONTROL}/api-keys/${b.ids.bootstrapKey}/storage-connection`, {
          key: b.session,
          body: { storage_connection_id: a.ids.customerStorage },
        }),
    ],
    [
      "creates a key on A's storage connection",
      () =>
        t.api.post(`${CONTROL}/api-keys`, {
          key: b.session,
          body: { name: 'on A storage', storage_connection_id: a.ids.managedStorage },
        }),
    ],
    [
      "creates a memory from A's private template",
      () =>
        t.api.post('/v1/memories', {
          key: b.api_key,
          body: { template_name: a.ids.templateName, data: { title: 'by B' } },
        }),
    ],
    [
      "redelivers A's delivery through B's own endpoint",
      () =>
        t.api.post(
          `${CONTROL}/webhook-endpoints/${b.ids.webhookEndpoint}/deliveries/${a.ids.webhookDelivery}/redeliver`,
          { key: b.session },
        ),
    ],
    [
      "imports with A's private template",
      () => upload(b.api_key, { template_name: a.ids.templateName }, 'title\nby B\n'),
    ],
  ])('when B %s, then 404 naming nothing of A, and neither tenant changes', async (_label, send) => {
    const res = await send();

    expectRefusedBlind(res);
    await expectBothUnchanged();
  });

  it.each(LISTS)("when B lists %s, then B's own are there and nothing of A's", async (list) => {
    const res = await t.api.get(`${CONTROL}/${list}`, { key: b.session });

    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(identifyingIn(a, res.body)).toEqual([]);
    expect(identifyingIn(b, res.body).length).toBeGreaterThan(0);
  });

  it("when B's key lists templates, then B's own is there and nothing of A's", async () => {
    const res = await t.api.get('/v1/templates', { key: b.api_key });

    expect(res).toMatchObject({ status: 200, body: { data: [{ id: b.ids.template }] } });
    expect(identifyingIn(a, res.body)).toEqual([]);
  });

  // Before NAMESPACE_CASES, where B writes into a partition of its own under A's namespace name.
  it.each([
    ['key', () => b.api_key],
    ['session', () => b.session],
  ])("when B's %s lists namespaces, then B's own is there and nothing of A's", async (_credential, key) => {
    const res = await t.api.get('/api/v1/infrastructure/namespaces', { key: key() });

    expect(res.status).toBe(200);
    expect(res.body.data.map((n: { namespace: string }) => n.namespace)).toContain(b.namespace);
    expect(identifyingIn(a, res.body)).toEqual([]);
  });

  for (const { route, what, send, expected } of NAMESPACE_CASES) {
    it(`when B's key ${what} (${route}), then only B's own partition is touched and nothing of A's comes back`, async () => {
      const res = await send(a, b);

      expect(res).toMatchObject(expected(a));
      expect(identifyingIn(a, res.body, [a.namespace, a.conversation])).toEqual([]);
      expect(await stateOf(t, a)).toEqual(aBefore);
    });
  }

  it("then, after every attempt above, A's keys and session still work and A's objects are as A left them", async () => {
    const recalls = await Promise.all(
      [a.api_key, a.extraKey.key as string].map((key) =>
        t.api.recall(key, recallBody(a.namespace, 'private note', { top_k: 10 })),
      ),
    );
    const account = await t.api.get(`${CONTROL}/account`, { key: a.session });

    for (const res of recalls) {
      expect(res.status).toBe(200);
      expect(res.body.related.map((r: { text: string }) => r.text)).toContain(
        `private note of ${a.identifying.at(-1)}`,
      );
    }
    expect(account.status).toBe(200);
    const state = await stateOf(t, a);
    expect(state).toEqual(aBefore);
    expect(state.charge).toMatchObject({
      id: a.ids.charge,
      state: 'recorded',
      history: [{ to: 'recorded' }],
    });
    expect(state['api-keys']).toHaveLength(2);
    expect(state['api-keys']).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: a.ids.extraKey, name: a.extraKey.name, status: 'active' }),
        expect.objectContaining({ id: a.ids.bootstrapKey, status: 'active', revoked_at: null }),
      ]),
    );
  });
});
