import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { asListed } from '../support/contract.js';
import { controlSteps, TIMESTAMP as timestamp } from '../support/control.js';
import {
  recallBody,
  relatedTexts as texts,
  uniqueKey,
  uniqueNamespace,
  writeBody,
} from '../support/factories.js';
import { recordsInNamespace } from '../support/memory-db.js';
import { useStack } from '../support/stack.js';

const t = useStack();
const { tenantWithSession } = controlSteps(t);

const STORAGE = '/api/v1/control/storage-connections';

const customerSettings = () => ({
  engine: 'postgresql',
  host: 'db.customer.example',
  port: 6543,
  database: 'memories',
  username: 'svc_memory',
});

describe('POST /api/v1/control/storage-connections', () => {
  it('when a customer-owned connection is created, then 201 control_plane_only, its secret is never shown, and keys attached to it cannot reach memory', async () => {
    const tenant = await tenantWithSession();
    const secret = `s3cret-${randomUUID()}`;

    const created = await t.api.post(STORAGE, {
      key: tenant.session,
      body: { kind: 'customer_owned', name: 'customer warehouse', settings: customerSettings(), secret },
    });
    const one = await t.api.get(`${STORAGE}/${created.body.id}`, { key: tenant.session });
    const list = await t.api.get(STORAGE, { key: tenant.session });
    const key = await t.api.post('/api/v1/control/api-keys', {
      key: tenant.session,
      body: { name: 'customer storage key', storage_connection_id: created.body.id },
    });
    const namespace = uniqueNamespace();
    const written = await t.api.write(
      key.body.key,
      writeBody(namespace, 'Not for customer storage'),
      uniqueKey(),
    );
    const recalled = await t.api.recall(key.body.key, recallBody(namespace, 'customer storage'));

    expect(created).toMatchObject({
      status: 201,
      body: {
        id: expect.any(String),
        name: 'customer warehouse',
        kind: 'customer_owned',
        status: 'active',
        dispatch: 'control_plane_only',
        secret_configured: true,
        created_at: timestamp,
        updated_at: timestamp,
      },
    });
    // The defaults are filled in and shown; nothing else is.
    expect(created.body.settings).toEqual({ ...customerSettings(), ssl_mode: 'verify-full' });
    expect(one).toMatchObject({ status: 200, body: created.body });
    expect(list).toMatchObject({ status: 200 });
    expect(list.body.data).toEqual([
      expect.objectContaining({
        id: tenant.storage_connection_id,
        kind: 'managed',
        dispatch: 'memory_requests',
        secret_configured: false,
      }),
      asListed(created.body),
    ]);
    for (const res of [created, one, list]) expect(JSON.stringify(res.body)).not.toContain(secret);
    expect(key).toMatchObject({ status: 201, body: { storage_connection_id: created.body.id } });
    for (const res of [written, recalled]) {
      expect(res).toMatchObject({
        status: 403,
        body: { retryable: false, details: { code: 'storage_not_attached' } },
      });
      expect(res.body.error).toMatch(/customer-owned.*control-plane only/);
    }
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
  });

  it('when a managed connection is created, then 201 memory_requests and a key attached to it works', async () => {
    const tenant = await tenantWithSession();
    const namespace = uniqueNamespace();

    const created = await t.api.post(STORAGE, {
      key: tenant.session,
      body: { kind: 'managed', name: 'second' },
    });
    const key = await t.api.post('/api/v1/control/api-keys', {
      key: tenant.session,
      body: { name: 'on second storage', storage_connection_id: created.body.id },
    });
    const written = await t.api.write(
      key.body.key,
      writeBody(namespace, 'Kept on managed storage'),
      uniqueKey(),
    );

    expect(created).toMatchObject({
      status: 201,
      body: {
        name: 'second',
        kind: 'managed',
        status: 'active',
        dispatch: 'memory_requests',
        settings: {},
        secret_configured: false,
      },
    });
    expect(key).toMatchObject({ status: 201, body: { storage_connection_id: created.body.id } });
    expect(written).toMatchObject({ status: 200, body: { state: 'retained' } });
  });

  const invalid: Array<[string, (secret: string) => Record<string, unknown>, string]> = [
    [
      'a port out of range',
      (secret) => ({
        kind: 'customer_owned',
        name: 'c',
        settings: { ...customerSettings(), port: 70_000 },
        secret,
      }),
      'settings.port',
    ],
    [
      'a port given as text',
      (secret) => ({
        kind: 'customer_owned',
        name: 'c',
        settings: { ...customerSettings(), port: '5432' },
        secret,
      }),
      'settings.port',
    ],
    [
      'no host',
      (secret) => ({
        kind: 'customer_owned',
        name: 'c',
        settings: { ...customerSettings(), host: undefined },
        secret,
      }),
      'settings.host',
    ],
    [
      'a host that is a URL',
      (secret) => ({
        kind: 'customer_owned',
        name: 'c',
        settings: { ...customerSettings(), host: 'postgres://db.customer.example' },
        secret,
      }),
      'settings.host',
    ],
    [
      'an extra setting (a password outside the secret)',
      (secret) => ({
        kind: 'customer_owned',
        name: 'c',
        settings: { ...customerSettings(), password: secret },
        secret,
      }),
      'settings.password',
    ],
    [
      'another engine',
      (secret) => ({
        kind: 'customer_owned',
        name: 'c',
        settings: { ...customerSettings(), engine: 'mysql' },
        secret,
      }),
      'settings.engine',
    ],
    ['no secret', () => ({ kind: 'customer_owned', name: 'c', settings: customerSettings() }), 'secret'],
    [
      'a managed connection with settings',
      (secret) => ({ kind: 'managed', name: 'm', settings: customerSettings(), secret }),
      'settings',
    ],
    ['an unknown kind', () => ({ kind: 'shared', name: 's' }), 'kind'],
  ];

  it.each(invalid)(
    'when the body has %s, then 400 with field details, no connection is created and the secret is not echoed',
    async (_label, make, path) => {
      const tenant = await tenantWithSession();
      const secret = `s3cret-${randomUUID()}`;

      const res = await t.api.post(STORAGE, { key: tenant.session, body: make(secret) });

      expect(res).toMatchObject({
        status: 400,
        body: { retryable: false, details: { code: 'validation_failed', fields: expect.any(Array) } },
      });
      expect(res.body.details.fields.map((f: { path: string }) => f.path)).toContain(path);
      expect(JSON.stringify(res.body)).not.toContain(secret);
      const list = await t.api.get(STORAGE, { key: tenant.session });
      expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([tenant.storage_connection_id]);
    },
  );
});

describe('PATCH /api/v1/control/storage-connections/{id}', () => {
  it('when a managed connection is disabled, then memory requests through its keys are 403; when enabled again, then they work', async () => {
    const tenant = await tenantWithSession();
    const namespace = uniqueNamespace();
    const before = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'Written while active'),
      uniqueKey(),
    );

    const disabled = await t.api.patch(`${STORAGE}/${tenant.storage_connection_id}`, {
      key: tenant.session,
      body: { status: 'disabled' },
    });
    const refusedWrite = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'Written while disabled'),
      uniqueKey(),
    );
    const refusedRecall = await t.api.recall(tenant.api_key, recallBody(namespace, 'written'));
    const enabled = await t.api.patch(`${STORAGE}/${tenant.storage_connection_id}`, {
      key: tenant.session,
      body: { status: 'active' },
    });
    const after = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'Written when enabled again'),
      uniqueKey(),
    );
    const recalled = await t.api.recall(
      tenant.api_key,
      recallBody(namespace, 'written active disabled enabled'),
    );

    expect(before.status).toBe(200);
    expect(disabled).toMatchObject({
      status: 200,
      body: {
        id: tenant.storage_connection_id,
        kind: 'managed',
        status: 'disabled',
        dispatch: 'memory_requests',
      },
    });
    for (const res of [refusedWrite, refusedRecall]) {
      expect(res).toMatchObject({
        status: 403,
        body: { retryable: false, details: { code: 'storage_not_attached' } },
      });
    }
    expect(enabled).toMatchObject({
      status: 200,
      body: { id: tenant.storage_connection_id, status: 'active' },
    });
    expect(after).toMatchObject({ status: 200, body: { state: 'retained' } });
    expect(texts(recalled).sort()).toEqual(['Written when enabled again', 'Written while active']);
    const state = await t.api.get(`${STORAGE}/${tenant.storage_connection_id}`, { key: tenant.session });
    expect(state.body).toEqual(enabled.body);
  });

  it('when a managed connection is given settings or a secret, then 400 and it is unchanged', async () => {
    const tenant = await tenantWithSession();
    const path = `${STORAGE}/${tenant.storage_connection_id}`;
    const before = await t.api.get(path, { key: tenant.session });

    const withSettings = await t.api.patch(path, {
      key: tenant.session,
      body: { settings: customerSettings() },
    });
    const withSecret = await t.api.patch(path, { key: tenant.session, body: { secret: 'not for managed' } });

    expect(withSettings).toMatchObject({
      status: 400,
      body: { details: { code: 'validation_failed', fields: [{ path: 'settings' }] } },
    });
    expect(withSecret).toMatchObject({
      status: 400,
      body: { details: { code: 'validation_failed', fields: [{ path: 'secret' }] } },
    });
    const after = await t.api.get(path, { key: tenant.session });
    expect(after.body).toEqual(before.body);
  });

  it("when a customer-owned connection's secret is replaced, then it stays configured and is never shown", async () => {
    const tenant = await tenantWithSession();
    const created = await t.api.post(STORAGE, {
      key: tenant.session,
      body: {
        kind: 'customer_owned',
        name: 'c',
        settings: customerSettings(),
        secret: `old-${randomUUID()}`,
      },
    });
    const newSecret = `new-${randomUUID()}`;

    const res = await t.api.patch(`${STORAGE}/${created.body.id}`, {
      key: tenant.session,
      body: { secret: newSecret, settings: { ...customerSettings(), host: 'db2.customer.example' } },
    });

    expect(res).toMatchObject({
      status: 200,
      body: {
        id: created.body.id,
        kind: 'customer_owned',
        secret_configured: true,
        settings: { host: 'db2.customer.example', port: 6543 },
      },
    });
    expect(JSON.stringify(res.body)).not.toContain(newSecret);
    const state = await t.api.get(`${STORAGE}/${created.body.id}`, { key: tenant.session });
    expect(state.body).toEqual(res.body);
  });
});
