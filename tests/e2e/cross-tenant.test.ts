import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Api } from './support/api.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from './support/factories.js';
import { useStack } from './support/stack.js';

const t = useStack();

const CONTROL = '/api/v1/control';
const LISTS = ['users', 'api-keys', 'storage-connections', 'operator-tokens'] as const;

/**
 * The charge billing records for the tenant's write: billing consumes usage off the request's path,
 * so read until it is there (ten seconds at most).
 */
async function firstCharge(session: string) {
  await t.stack.memory.flushOutbox();
  for (let attempt = 0; attempt < 200; attempt++) {
    const res = await t.api.get(`${CONTROL}/billing/charges`, { key: session });
    if (res.status === 200 && res.body.data.length > 0) return res.body.data[0];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no charge recorded for the write');
}

/** A tenant whose owner has made one of everything the control plane manages, and written memory. */
async function tenantWithOneOfEverything(label: string) {
  const tenant = await createTenant();
  const session = await t.api.login(tenant.owner.email, tenant.owner.password);
  const tag = `${label}-${randomUUID().slice(0, 8)}`;
  const create = async (list: (typeof LISTS)[number], body: object) => {
    const res = await t.api.post(`${CONTROL}/${list}`, { key: session, body });
    expect(res.status, `creating ${list}: ${JSON.stringify(res.body)}`).toBe(201);
    return res.body;
  };
  const extraKey = await create('api-keys', { name: `key-${tag}` });
  const storage = await create('storage-connections', {
    kind: 'customer_owned',
    name: `storage-${tag}`,
    settings: { engine: 'postgresql', host: 'db.example.test', port: 5432, database: 'x', username: 'u' },
    secret: `db-secret-${randomUUID()}`,
  });
  const member = await create('users', {
    email: `member-${tag}@example.test`,
    password: `pw-${randomUUID()}`,
    role: 'developer',
  });
  const operatorToken = await create('operator-tokens', { name: `token-${tag}` });
  const namespace = uniqueNamespace(`private-${tag}`);
  const written = await t.api.write(
    tenant.api_key,
    writeBody(namespace, `private note of ${tag}`),
    uniqueKey(),
  );
  expect(written.status).toBe(200);
  const charge = await firstCharge(session);
  const tenantName = (await t.api.get(`${CONTROL}/account`, { key: session })).body.tenant.name as string;

  return {
    ...tenant,
    session,
    namespace,
    extraKey,
    /** The ids an intruder could aim at, by what they name. */
    ids: {
      owner: tenant.user_id,
      member: member.id as string,
      bootstrapKey: tenant.key_id,
      extraKey: extraKey.id as string,
      managedStorage: tenant.storage_connection_id as string,
      customerStorage: storage.id as string,
      operatorToken: operatorToken.id as string,
      charge: charge.id as string,
    },
    /** Everything that identifies this tenant or its resources; none of it may reach another tenant. */
    identifying: [
      tenant.tenant_id,
      tenantName,
      tenant.owner.email,
      member.email,
      tenant.key_prefix,
      extraKey.prefix,
      extraKey.name,
      storage.name,
      operatorToken.name,
      operatorToken.prefix,
      namespace,
      tag,
    ] as string[],
  };
}
type Tenant = Awaited<ReturnType<typeof tenantWithOneOfEverything>>;
type Target = keyof Tenant['ids'];

/**
 * What the owner sees of their tenant through the control plane: every list, and the charge for its
 * first write. A key's last use is left out: it is refreshed in the background after the tenant's own
 * requests; so are charges after the first (the tenant's own recalls below add some).
 */
async function stateOf(tenant: Tenant) {
  const lists = await Promise.all(
    LISTS.map(async (list) => {
      const res = await t.api.get(`${CONTROL}/${list}`, { key: tenant.session });
      expect(res.status).toBe(200);
      return res.body.data.map(({ last_used_at: _, ...rest }: { last_used_at?: unknown }) => rest);
    }),
  );
  const charges = await t.api.get(`${CONTROL}/billing/charges`, {
    key: tenant.session,
    query: { limit: '200' },
  });
  expect(charges.status).toBe(200);
  return Object.fromEntries([
    ...LISTS.map((list, i) => [list, lists[i]]),
    ['charge', charges.body.data.find((c: { id: string }) => c.id === tenant.ids.charge)],
  ]);
}

function identifyingIn(tenant: Tenant, body: unknown): string[] {
  const text = JSON.stringify(body);
  return [...Object.values(tenant.ids), ...tenant.identifying].filter((value) => text.includes(value));
}

type Send = (api: Api, path: string, options: { key: string; body?: object }) => ReturnType<Api['get']>;
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
/**
 * Every id-bearing control route (a test below holds this list to the OpenAPI document), each aimed
 * at every one of A's ids it takes, with the most damaging body B could send.
 */
const ROUTES: Array<{ route: string; targets: Target[]; body?: (b: Tenant) => object }> = [
  { route: 'GET /api/v1/control/users/{id}', targets: USERS },
  { route: 'PATCH /api/v1/control/users/{id}', targets: USERS, body: () => ({ status: 'disabled' }) },
  { route: 'GET /api/v1/control/api-keys/{id}', targets: KEYS },
  {
    route: 'PATCH /api/v1/control/api-keys/{id}',
    targets: KEYS,
    body: () => ({ name: 'renamed by B', permissions: ['telemetry:read'] }),
  },
  { route: 'POST /api/v1/control/api-keys/{id}/revoke', targets: KEYS },
  { route: 'POST /api/v1/control/api-keys/{id}/rotate', targets: KEYS },
  {
    route: 'PUT /api/v1/control/api-keys/{id}/storage-connection',
    targets: KEYS,
    body: (b) => ({ storage_connection_id: b.ids.managedStorage }),
  },
  { route: 'DELETE /api/v1/control/api-keys/{id}/storage-connection', targets: KEYS },
  { route: 'GET /api/v1/control/storage-connections/{id}', targets: STORAGE },
  {
    route: 'PATCH /api/v1/control/storage-connections/{id}',
    targets: STORAGE,
    body: () => ({ name: 'renamed by B', status: 'disabled' }),
  },
  { route: 'POST /api/v1/control/operator-tokens/{id}/revoke', targets: ['operatorToken'] },
  {
    route: 'POST /api/v1/control/billing/charges/{id}/void',
    targets: ['charge'],
    body: () => ({ reason: 'voided by B' }),
  },
];
const ATTACKS = ROUTES.flatMap(({ route, targets, body }) =>
  targets.map((target) => ({ route, target, body })),
);

describe("OWASP API1: one tenant's session aimed at another tenant's objects", () => {
  let a: Tenant;
  let b: Tenant;
  let aBefore: Awaited<ReturnType<typeof stateOf>>;
  let bBefore: Awaited<ReturnType<typeof stateOf>>;
  // Made once for all attempts: each attempt must leave both tenants exactly as they were, and each
  // test checks that, so a successful attack fails where it happened.
  beforeAll(async () => {
    a = await tenantWithOneOfEverything('a');
    b = await tenantWithOneOfEverything('b');
    aBefore = await stateOf(a);
    bBefore = await stateOf(b);
  });

  /** The refusal every attempt gets: not found, as if A's object did not exist, and naming nothing of A's. */
  function expectRefusedBlind(res: Awaited<ReturnType<Api['get']>>) {
    expect(res).toMatchObject({ status: 404, body: { retryable: false, details: { code: 'not_found' } } });
    expect(identifyingIn(a, res.body)).toEqual([]);
  }

  it('then ROUTES covers every id-bearing control route the OpenAPI document lists', async () => {
    const doc = await t.api.get('/api/v1/openapi.json');
    const documented = Object.entries(doc.body.paths as Record<string, object>)
      .filter(([path]) => path.startsWith(`${CONTROL}/`) && path.includes('{id}'))
      .flatMap(([path, operations]) =>
        Object.keys(operations)
          .filter((method) => method.toUpperCase() in METHODS)
          .map((method) => `${method.toUpperCase()} ${path}`),
      );

    expect(ROUTES.map((r) => r.route).sort()).toEqual(documented.sort());
  });

  for (const { route, target, body } of ATTACKS) {
    it(`when B's session calls ${route} with A's ${target} id, then 404 naming nothing of A's, and A keeps everything`, async () => {
      const [method = '', template = ''] = route.split(' ');
      const send = METHODS[method] as Send;

      const res = await send(t.api, template.replace('{id}', a.ids[target]), {
        key: b.session,
        ...(body ? { body: body(b) } : {}),
      });

      expectRefusedBlind(res);
      expect(await stateOf(a)).toEqual(aBefore);
      expect(await stateOf(b)).toEqual(bBefore);
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
  ])('when B %s, then 404 naming nothing of A, and neither tenant changes', async (_label, send) => {
    const res = await send();

    expectRefusedBlind(res);
    expect(await stateOf(a)).toEqual(aBefore);
    expect(await stateOf(b)).toEqual(bBefore);
  });

  it.each(LISTS)("when B lists %s, then B's own are there and nothing of A's", async (list) => {
    const res = await t.api.get(`${CONTROL}/${list}`, { key: b.session });

    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(identifyingIn(a, res.body)).toEqual([]);
    expect(identifyingIn(b, res.body).length).toBeGreaterThan(0);
  });

  it("when B's key recalls A's namespace by name, then it sees nothing", async () => {
    const res = await t.api.recall(b.api_key, recallBody(a.namespace, 'private note', { top_k: 10 }));

    expect(res).toMatchObject({ status: 200, body: { namespace: a.namespace, related: [] } });
    expect(JSON.stringify(res.body)).not.toContain('private note of');
  });

  it("when B's key deletes A's namespace by name, then nothing is deleted and A still recalls its note", async () => {
    const res = await t.api.deleteNamespace(b.api_key, a.namespace);
    const afterwards = await t.api.recall(a.api_key, recallBody(a.namespace, 'private note', { top_k: 10 }));

    expect(res).toMatchObject({ status: 200, body: { state: 'no_data', deleted: 0 } });
    expect(afterwards.status).toBe(200);
    expect(afterwards.body.related).toHaveLength(1);
  });

  it("then, after every attempt above, A's keys and session still work and A's objects are as A left them", async () => {
    const recalls = await Promise.all(
      [a.api_key, a.extraKey.key as string].map((key) =>
        t.api.recall(key, recallBody(a.namespace, 'private note', { top_k: 10 })),
      ),
    );
    const account = await t.api.get(`${CONTROL}/account`, { key: a.session });

    for (const res of recalls) {
      expect(res.status).toBe(200);
      expect(res.body.related).toHaveLength(1);
    }
    expect(account.status).toBe(200);
    const state = await stateOf(a);
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
