import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { controlSteps, PERMISSION_DENIED, TIMESTAMP as timestamp } from '../support/control.js';
import { useStack } from '../support/stack.js';
import { WEBHOOK_ENDPOINTS } from '../support/webhooks.js';

const t = useStack();
const { tenantWithSession, addUser } = controlSteps(t);

const NOT_FOUND = { status: 404, body: { retryable: false, details: { code: 'not_found' } } };
const SECRET = expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/);

const newEndpoint = (overrides: Record<string, unknown> = {}) => ({
  url: 'https://hooks.example.com/text-memory',
  events: ['memory.retained', 'namespace.deleted'],
  description: 'orders service',
  ...overrides,
});

describe('POST /api/v1/control/webhook-endpoints', () => {
  it('when an owner registers an endpoint, then 201 with its secret once, and the secret is in no later answer', async () => {
    const tenant = await tenantWithSession();

    const created = await t.api.post(WEBHOOK_ENDPOINTS, { key: tenant.session, body: newEndpoint() });
    const one = await t.api.get(`${WEBHOOK_ENDPOINTS}/${created.body.id}`, { key: tenant.session });
    const list = await t.api.get(WEBHOOK_ENDPOINTS, { key: tenant.session });

    const view = {
      id: expect.any(String),
      url: 'https://hooks.example.com/text-memory',
      description: 'orders service',
      events: ['memory.retained', 'namespace.deleted'],
      include_text: false,
      enabled: true,
      disabled_reason: null,
      created_at: timestamp,
      updated_at: timestamp,
    };
    expect(created).toMatchObject({ status: 201, body: { ...view, secret: SECRET } });
    expect(one).toMatchObject({ status: 200, body: { ...view, id: created.body.id } });
    expect(one.body).not.toHaveProperty('secret');
    expect(list).toMatchObject({ status: 200, body: { data: [{ ...view, id: created.body.id }] } });
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);
  });

  it('when an admin registers one with include_text, then it is stored as asked', async () => {
    const tenant = await tenantWithSession();
    const admin = await addUser(tenant.session, 'admin');
    const session = await t.api.login(admin.email, admin.password);

    const created = await t.api.post(WEBHOOK_ENDPOINTS, {
      key: session,
      body: newEndpoint({ include_text: true, events: ['memory.retained'] }),
    });

    expect(created).toMatchObject({ status: 201, body: { include_text: true, events: ['memory.retained'] } });
  });

  it.each(['developer', 'viewer'] as const)(
    'when a %s tries, then 403 and nothing is registered',
    async (role) => {
      const tenant = await tenantWithSession();
      const user = await addUser(tenant.session, role);
      const session = await t.api.login(user.email, user.password);

      const created = await t.api.post(WEBHOOK_ENDPOINTS, { key: session, body: newEndpoint() });
      const listed = await t.api.get(WEBHOOK_ENDPOINTS, { key: session });

      expect(created).toMatchObject(PERMISSION_DENIED);
      expect(listed).toMatchObject(PERMISSION_DENIED);
      expect((await t.api.get(WEBHOOK_ENDPOINTS, { key: tenant.session })).body.data).toEqual([]);
    },
  );

  it.each([
    ['a private address', { url: 'http://10.1.2.3/hook' }, 'url'],
    ['a link-local address', { url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
    ['an IPv4-mapped private address', { url: 'http://[::ffff:192.168.0.1]/hook' }, 'url'],
    ['an unspecified address', { url: 'http://0.0.0.0:8080/' }, 'url'],
    ['IPv4-compatible 10.0.0.1', { url: 'http://[::a00:1]/hook' }, 'url'],
    ['IPv4-compatible 169.254.169.254', { url: 'http://[::a9fe:a9fe]/latest/meta-data' }, 'url'],
    ['IPv4-compatible 192.168.1.1', { url: 'http://[::c0a8:101]/hook' }, 'url'],
    ['IPv4-compatible 127.0.0.1', { url: 'http://[::7f00:1]/hook' }, 'url'],
    ['a leading space', { url: ' https://hooks.example.com/x' }, 'url'],
    ['a CR LF', { url: 'https://hooks.example.com/x\r\nX-Injected: 1' }, 'url'],
    ['a tab', { url: 'https://hooks.exa\tmple.com/x' }, 'url'],
    ['a backslash before an @', { url: 'http://hooks.example.com\\@127.0.0.1/' }, 'url'],
    ['an empty user and password', { url: 'http://:@hooks.example.com/x' }, 'url'],
    ['an empty user before the host', { url: 'http://@hooks.example.com/x' }, 'url'],
    ['an ftp URL', { url: 'ftp://hooks.example.com/x' }, 'url'],
    ['a URL with a password', { url: 'https://user:pw@hooks.example.com/x' }, 'url'],
    ['an unknown event type', { events: ['memory.recalled'] }, 'events.0'],
    ['no event types', { events: [] }, 'events'],
    ['a repeated event type', { events: ['memory.retained', 'memory.retained'] }, 'events'],
    ['an unknown field', { tenant_id: randomUUID() }, ''],
  ])(
    'when the body has %s, then 400 naming the field and nothing is registered',
    async (_, change, field) => {
      const tenant = await tenantWithSession();

      const res = await t.api.post(WEBHOOK_ENDPOINTS, { key: tenant.session, body: newEndpoint(change) });

      expect(res).toMatchObject({ status: 400, body: { details: { code: 'validation_failed' } } });
      if (field)
        expect(res.body.details.fields).toEqual(
          expect.arrayContaining([expect.objectContaining({ path: field })]),
        );
      expect((await t.api.get(WEBHOOK_ENDPOINTS, { key: tenant.session })).body.data).toEqual([]);
    },
  );

  it.each([
    [' https://hooks.example.com/x', 'must not contain spaces or control characters'],
    ['http://hooks.example.com\\@127.0.0.1/', 'must not contain a backslash'],
    ['http://:@hooks.example.com/x', 'must not carry a user name or password'],
  ])('when the URL is %j, then the 400 says why', async (url, message) => {
    const tenant = await tenantWithSession();

    const res = await t.api.post(WEBHOOK_ENDPOINTS, { key: tenant.session, body: newEndpoint({ url }) });

    expect(res).toMatchObject({
      status: 400,
      body: { retryable: false, details: { code: 'validation_failed', fields: [{ path: 'url', message }] } },
    });
  });

  it('when the URL is valid but not in its parsed form, then the parsed form is stored and answered', async () => {
    const tenant = await tenantWithSession();

    const created = await t.api.post(WEBHOOK_ENDPOINTS, {
      key: tenant.session,
      body: newEndpoint({ url: 'HTTPS://Hooks.Example.COM:443/a/../text-memory?x=1%202' }),
    });
    const listed = await t.api.get(WEBHOOK_ENDPOINTS, { key: tenant.session });

    expect(created).toMatchObject({
      status: 201,
      body: { url: 'https://hooks.example.com/text-memory?x=1%202' },
    });
    expect(listed.body.data).toMatchObject([{ url: 'https://hooks.example.com/text-memory?x=1%202' }]);
  });
});

describe('PATCH and DELETE /api/v1/control/webhook-endpoints/{id}', () => {
  it('when an endpoint is changed, disabled, enabled and deleted, then each answer and the list show it', async () => {
    const tenant = await tenantWithSession();
    const { body: created } = await t.api.post(WEBHOOK_ENDPOINTS, {
      key: tenant.session,
      body: newEndpoint(),
    });
    const path = `${WEBHOOK_ENDPOINTS}/${created.id}`;

    const changed = await t.api.patch(path, {
      key: tenant.session,
      body: { url: 'https://other.example.com/h', events: ['charge.voided'], include_text: true },
    });
    const disabled = await t.api.patch(path, { key: tenant.session, body: { enabled: false } });
    const enabled = await t.api.patch(path, { key: tenant.session, body: { enabled: true } });
    const deleted = await t.api.delete(path, { key: tenant.session });
    const after = await t.api.get(path, { key: tenant.session });

    expect(changed).toMatchObject({
      status: 200,
      body: {
        url: 'https://other.example.com/h',
        events: ['charge.voided'],
        include_text: true,
        enabled: true,
      },
    });
    expect(disabled).toMatchObject({ status: 200, body: { enabled: false } });
    expect(enabled).toMatchObject({ status: 200, body: { enabled: true, disabled_reason: null } });
    expect(deleted).toMatchObject({ status: 200, body: { id: created.id, deleted: true } });
    expect(after).toMatchObject(NOT_FOUND);
    expect((await t.api.get(WEBHOOK_ENDPOINTS, { key: tenant.session })).body.data).toEqual([]);
  });

  it('when a change is empty or points at a private address, then 400 and the endpoint is unchanged', async () => {
    const tenant = await tenantWithSession();
    const { body: created } = await t.api.post(WEBHOOK_ENDPOINTS, {
      key: tenant.session,
      body: newEndpoint(),
    });
    const path = `${WEBHOOK_ENDPOINTS}/${created.id}`;

    const empty = await t.api.patch(path, { key: tenant.session, body: {} });
    const inward = await t.api.patch(path, { key: tenant.session, body: { url: 'http://192.168.1.1/' } });
    const compatible = await t.api.patch(path, { key: tenant.session, body: { url: 'http://[::a00:1]/' } });
    const userinfo = await t.api.patch(path, { key: tenant.session, body: { url: 'http://:@example.com/' } });

    expect(empty).toMatchObject({ status: 400, body: { details: { code: 'validation_failed' } } });
    for (const refused of [inward, compatible, userinfo])
      expect(refused).toMatchObject({
        status: 400,
        body: { details: { code: 'validation_failed', fields: [{ path: 'url' }] } },
      });
    expect((await t.api.get(path, { key: tenant.session })).body.url).toBe(created.url);
  });

  it('when an id is unknown or not an id, then 404', async () => {
    const tenant = await tenantWithSession();

    expect(await t.api.get(`${WEBHOOK_ENDPOINTS}/${randomUUID()}`, { key: tenant.session })).toMatchObject(
      NOT_FOUND,
    );
    expect(await t.api.delete(`${WEBHOOK_ENDPOINTS}/not-an-id`, { key: tenant.session })).toMatchObject(
      NOT_FOUND,
    );
  });
});

describe('POST /api/v1/control/webhook-endpoints/{id}/rotate-secret', () => {
  it('when the secret is rotated, then a new one is answered once with the old one’s overlap', async () => {
    const tenant = await tenantWithSession();
    const { body: created } = await t.api.post(WEBHOOK_ENDPOINTS, {
      key: tenant.session,
      body: newEndpoint(),
    });

    const rotated = await t.api.post(`${WEBHOOK_ENDPOINTS}/${created.id}/rotate-secret`, {
      key: tenant.session,
    });

    expect(rotated).toMatchObject({
      status: 200,
      body: { id: created.id, secret: SECRET, previous_secret_expires_at: timestamp },
    });
    expect(rotated.body.secret).not.toBe(created.secret);
    const overlapHours = (Date.parse(rotated.body.previous_secret_expires_at) - Date.now()) / 3_600_000;
    expect(Math.round(overlapHours)).toBe(24);
  });
});
