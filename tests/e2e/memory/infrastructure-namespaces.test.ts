import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { RESERVED_NAMESPACE_PREFIX, Subjects } from '@tm/contracts';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ISO_TIMESTAMP, PERMISSION_DENIED, suffix, UNAUTHENTICATED } from '../support/control.js';
import { createTenant, uniqueKey, writeBody } from '../support/factories.js';
import { stackEnv, useStack } from '../support/stack.js';

// A short deadline so the 504 case does not wait 5 s; a short breaker reset so memory's return is
// seen soon after the 503 case.
const t = useStack({ breakerResetMs: 300, requestTimeoutMs: 2_000 });

const NAMESPACES = '/api/v1/infrastructure/namespaces';

type Tenant = Awaited<ReturnType<typeof createTenant>>;

const list = (credential: string | undefined, query: Record<string, string> = {}) =>
  t.api.get(NAMESPACES, { key: credential, query });

async function write(tenant: Tenant, namespace: string, event: Parameters<typeof writeBody>[2] = {}) {
  const res = await t.api.write(
    tenant.api_key,
    writeBody(namespace, `note ${randomUUID()}`, event),
    uniqueKey(),
  );
  expect(res).toMatchObject({ status: 200, body: { state: 'retained' } });
  return res;
}

/** Names that sort in the order of their letters, in any collation, and apart from other tests'. */
const namesFor = (...letters: string[]) => {
  const base = `ns-${suffix()}`;
  return letters.map((l) => `${base}-${l}`);
};

const counts = (namespace: string, records: number, current: number, superseded: number) => ({
  namespace,
  records,
  current_records: current,
  superseded_records: superseded,
  last_retained_at: expect.stringMatching(ISO_TIMESTAMP),
});

const lastPage = (limit: number, returned: number) => ({
  limit,
  returned,
  has_more: false,
  next_cursor: null,
});

const invalid = (field: string) => ({
  status: 400,
  body: {
    error: expect.any(String),
    retryable: false,
    request_id: expect.any(String),
    details: {
      code: 'validation_failed',
      request_id: expect.any(String),
      fields: [{ path: field, message: expect.any(String) }],
    },
  },
});

describe('GET /api/v1/infrastructure/namespaces', () => {
  it('when a tenant has written into namespaces, then each is listed once, by name, with its counts', async () => {
    const tenant = await createTenant();
    const [a, b, c] = namesFor('a', 'b', 'c') as [string, string, string];
    const before = Date.now();
    // Written out of name order: the listing's order is the names'.
    await write(tenant, c);
    await write(tenant, a);
    await write(tenant, b);
    await write(tenant, b);
    const after = Date.now();

    const res = await list(tenant.api_key);

    expect(res).toMatchObject({ status: 200 });
    expect(res.body).toEqual({
      contract_version: 'v1',
      data: [counts(a, 1, 1, 0), counts(b, 2, 2, 0), counts(c, 1, 1, 0)],
      paging: lastPage(100, 3),
      request_id: res.headers['x-request-id'],
    });
    for (const { last_retained_at } of res.body.data) {
      expect(Date.parse(last_retained_at)).toBeGreaterThanOrEqual(before - 1_000);
      expect(Date.parse(last_retained_at)).toBeLessThanOrEqual(after + 1_000);
    }
  });

  it('when a write supersedes an earlier one, then the namespace counts one current and one superseded record', async () => {
    const tenant = await createTenant();
    const [namespace] = namesFor('x') as [string];
    await write(tenant, namespace, { event_id: 'n1', occurred_at: '2026-11-22T09:00:00Z' });
    await write(tenant, namespace, {
      event_id: 'n2',
      occurred_at: '2026-11-22T10:00:00Z',
      supersedes: ['n1'],
    });
    // A target that does not exist yet is an unresolved relation: it supersedes nothing.
    await write(tenant, namespace, {
      event_id: 'n3',
      occurred_at: '2026-11-22T11:00:00Z',
      supersedes: ['n9'],
    });

    const res = await list(tenant.api_key);

    expect(res).toMatchObject({
      status: 200,
      body: { data: [counts(namespace, 3, 2, 1)], paging: lastPage(100, 1) },
    });
  });

  it('when a namespace is deleted, then it is no longer listed and the others keep their counts', async () => {
    const tenant = await createTenant();
    const [gone, kept] = namesFor('a', 'b') as [string, string];
    await write(tenant, gone);
    await write(tenant, gone);
    await write(tenant, kept);

    const deleted = await t.api.deleteNamespace(tenant.api_key, gone);

    expect(deleted).toMatchObject({ status: 200, body: { state: 'not_retained', deleted: 2 } });
    expect(await list(tenant.api_key)).toMatchObject({
      status: 200,
      body: { data: [counts(kept, 1, 1, 0)], paging: lastPage(100, 1) },
    });
  });

  it('when a tenant has written nothing, then the list is empty and the page the last', async () => {
    const tenant = await createTenant();

    const res = await list(tenant.api_key);

    expect(res).toMatchObject({ status: 200, body: { data: [], paging: lastPage(100, 0) } });
  });

  it('when there are more namespaces than the limit, then next_cursor leads through every one in name order, each once', async () => {
    const tenant = await createTenant();
    const names = namesFor('a', 'b', 'c', 'd', 'e');
    for (const namespace of [...names].reverse()) await write(tenant, namespace);

    const first = await list(tenant.api_key, { limit: '2' });
    const second = await list(tenant.api_key, { limit: '2', cursor: first.body.paging.next_cursor });
    const third = await list(tenant.api_key, { limit: '2', cursor: second.body.paging.next_cursor });

    expect(first.body).toMatchObject({
      data: [counts(names[0] as string, 1, 1, 0), counts(names[1] as string, 1, 1, 0)],
      paging: {
        limit: 2,
        returned: 2,
        has_more: true,
        next_cursor: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
      },
    });
    expect(second.body).toMatchObject({
      data: [counts(names[2] as string, 1, 1, 0), counts(names[3] as string, 1, 1, 0)],
      paging: { limit: 2, returned: 2, has_more: true },
    });
    expect(third.body).toMatchObject({
      data: [counts(names[4] as string, 1, 1, 0)],
      paging: lastPage(2, 1),
    });
    // A page that ends exactly on the last namespace says so (one row past the page is read).
    expect((await list(tenant.api_key, { limit: '5' })).body).toMatchObject({
      data: names.map((n) => counts(n, 1, 1, 0)),
      paging: lastPage(5, 5),
    });
  });

  it('when a namespace is written after a page was read, then the next page shows it if its name comes after the cursor', async () => {
    const tenant = await createTenant();
    const [a, b, c, d] = namesFor('a', 'b', 'c', 'd') as [string, string, string, string];
    await write(tenant, b);
    await write(tenant, c);
    const first = await list(tenant.api_key, { limit: '1' });

    await write(tenant, a); // before the cursor: not on a later page
    await write(tenant, d); // after it: on the next pages
    const rest = await list(tenant.api_key, { limit: '10', cursor: first.body.paging.next_cursor });

    expect(first.body.data.map((n: { namespace: string }) => n.namespace)).toEqual([b]);
    expect(rest.body.data.map((n: { namespace: string }) => n.namespace)).toEqual([c, d]);
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '1001' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ limit: '' }, 'limit'],
    [{ limit: '0x10' }, 'limit'],
    [{ cursor: 'not a cursor!' }, 'cursor'],
    // Valid base64url, but of a name no namespace can have.
    [{ cursor: Buffer.from('bad ns!').toString('base64url') }, 'cursor'],
    [{ cursor: Buffer.from(`x${'y'.repeat(128)}`).toString('base64url') }, 'cursor'],
    // 'a' is 'YQ'; 'YR' decodes to it too, but is not how this route spells it.
    [{ cursor: 'YR' }, 'cursor'],
    [{ offset: '0' }, 'offset'],
  ])('when the query is %o, then 400 validation_failed naming %s', async (query, field) => {
    const tenant = await createTenant();

    const res = await list(tenant.api_key, query);

    expect(res).toMatchObject(invalid(field));
  });

  it('when the limit is 1000, then it is accepted', async () => {
    const tenant = await createTenant();
    const [namespace] = namesFor('a') as [string];
    await write(tenant, namespace);

    const res = await list(tenant.api_key, { limit: '1000' });

    expect(res).toMatchObject({
      status: 200,
      body: { data: [counts(namespace, 1, 1, 0)], paging: lastPage(1000, 1) },
    });
  });

  it('when no credential is sent, then 401; when the key lacks telemetry:read, then 403; a session of the tenant is answered', async () => {
    const tenant = await createTenant();
    const [namespace] = namesFor('a') as [string];
    await write(tenant, namespace);
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const writer = await t.api.post('/api/v1/control/api-keys', {
      key: session,
      body: { name: 'writer', permissions: ['memory:write'] },
    });
    expect(writer.status).toBe(201);

    expect(await list(undefined)).toMatchObject(UNAUTHENTICATED);
    expect(await list(writer.body.key)).toMatchObject(PERMISSION_DENIED);
    expect(await list(session)).toMatchObject({
      status: 200,
      body: { data: [counts(namespace, 1, 1, 0)], paging: lastPage(100, 1) },
    });
  });

  it("when another tenant lists, then it sees only its own namespaces, even with a cursor made from the first tenant's name", async () => {
    const owner = await createTenant();
    const other = await createTenant();
    const [shared, ownersOnly] = namesFor('a', 'b') as [string, string];
    await write(owner, shared);
    await write(owner, shared);
    await write(owner, ownersOnly);
    await write(other, shared);
    const ownerCursor = (await list(owner.api_key, { limit: '1' })).body.paging.next_cursor;

    const res = await list(other.api_key);
    const fromCursor = await list(other.api_key, { cursor: ownerCursor });

    expect(res).toMatchObject({
      status: 200,
      body: { data: [counts(shared, 1, 1, 0)], paging: lastPage(100, 1) },
    });
    expect(fromCursor).toMatchObject({ status: 200, body: { data: [], paging: lastPage(100, 0) } });
    expect((await list(owner.api_key)).body.data).toEqual([
      counts(shared, 2, 2, 0),
      counts(ownersOnly, 1, 1, 0),
    ]);
  });

  it("when a smoke test's namespace was left behind, then it is listed as the export lists its records", async () => {
    const tenant = await createTenant();
    const [namespace] = namesFor('a') as [string];
    await write(tenant, namespace);
    // What a smoke test whose delete step failed leaves: a record under the reserved prefix.
    const leftover = `${RESERVED_NAMESPACE_PREFIX}${randomUUID()}`;
    await insertRecord(tenant, leftover);
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);

    const res = await list(tenant.api_key);
    const exported = await t.api.get('/api/v1/infrastructure/export', { key: session });

    expect(res).toMatchObject({
      status: 200,
      body: { data: [counts(namespace, 1, 1, 0), counts(leftover, 1, 1, 0)], paging: lastPage(100, 2) },
    });
    expect(exported.status).toBe(200);
    const exportedNamespaces = [
      ...new Set(exported.body.records.map((r: { namespace: string }) => r.namespace)),
    ];
    expect(exportedNamespaces).toEqual([namespace, leftover]);
  });
});

describe('GET /api/v1/infrastructure/namespaces while memory is unavailable', () => {
  it('when the memory service is down, then 503 service_unavailable, retryable with Retry-After; answered again once it is back', async () => {
    const tenant = await createTenant();
    const [namespace] = namesFor('a') as [string];
    await write(tenant, namespace);

    await t.stack.stopMemory();
    let during: Awaited<ReturnType<typeof list>>;
    try {
      during = await list(tenant.api_key);
    } finally {
      await t.stack.startMemory();
    }

    expect(during).toMatchObject({
      status: 503,
      body: { retryable: true, details: { code: 'service_unavailable' } },
    });
    expect(Number(during.headers['retry-after'])).toBeGreaterThan(0);
    await expect
      .poll(async () => (await list(tenant.api_key)).status, { timeout: 10_000, interval: 200 })
      .toBe(200);
  });

  it('when the memory service does not answer, then 504 upstream_timeout, retryable with Retry-After', async () => {
    const tenant = await createTenant();
    // A responder that takes the request and never answers: a hung instance.
    const hung = await connect({ servers: t.stack.env.natsUrl });
    hung.subscribe(Subjects.memory.listNamespaces, { queue: 'memory', callback: () => {} });
    await t.stack.stopMemory();
    await hung.flush();
    try {
      const res = await list(tenant.api_key);

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

/**
 * A record written straight into memory's table: the public routes refuse the reserved prefix, and a
 * smoke test deletes its namespace, so only a failed smoke test (or this) leaves one.
 */
async function insertRecord(tenant: Tenant, namespace: string) {
  const client = new pg.Client({ connectionString: stackEnv().memoryDbUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO memory_record (id, tenant_id, user_id, namespace, event_id, occurred_at, text, request_id)
       VALUES ($1, $2, $3, $4, 'smoke-leftover', now(), 'Smoke test leftover', 'test')`,
      [randomUUID(), tenant.tenant_id, tenant.user_id, namespace],
    );
  } finally {
    await client.end();
  }
}
