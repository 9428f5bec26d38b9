import { randomUUID } from 'node:crypto';
import { revokeApiKey } from '@tm/gateway';
import { describe, expect, it } from 'vitest';
import type { Api } from '../support/api.js';
import { asListed } from '../support/contract.js';
import {
  controlSteps,
  ISO_TIMESTAMP,
  PERMISSION_DENIED,
  TIMESTAMP as timestamp,
  UNAUTHENTICATED,
} from '../support/control.js';
import { eventually } from '../support/eventually.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useSecondGateway, useStack } from '../support/stack.js';

const t = useStack();

// A second gateway instance on the same database and bus: changes made through one must hold on the other.
const second = useSecondGateway(t);
const { addUser, recallWith, tenantWithSession } = controlSteps(t);

const KEYS = '/api/v1/control/api-keys';
const ALL_PERMISSIONS = ['memory:write', 'memory:recall', 'memory:delete', 'telemetry:read', 'export:read'];

async function createKey(session: string, body: Record<string, unknown>) {
  const res = await t.api.post(KEYS, { key: session, body });
  if (res.status !== 201) throw new Error(`key not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; key: string; prefix: string };
}

const write = (api: Api, key: string, namespace = uniqueNamespace(), text = 'a note') =>
  api.write(key, writeBody(namespace, text), uniqueKey());
const recall = (api: Api, key: string, namespace = uniqueNamespace(), cue = 'anything') =>
  api.recall(key, recallBody(namespace, cue));

/** A key's view without last_used_at, which a key's earlier use may still be writing in the background. */
const settled = ({ last_used_at: _lastUsed, ...view }: Record<string, unknown>) => view;

describe('POST /api/v1/control/api-keys', () => {
  it('when an owner creates a key with only a name, then 201 with the full key once, all permissions and the managed storage, and the key works', async () => {
    const tenant = await tenantWithSession();
    const namespace = uniqueNamespace();

    const res = await t.api.post(KEYS, { key: tenant.session, body: { name: 'ingest worker' } });

    expect(res).toMatchObject({
      status: 201,
      body: {
        id: expect.any(String),
        name: 'ingest worker',
        prefix: expect.stringMatching(/^tmk_[A-Za-z0-9]{8}$/),
        masked_key: expect.any(String),
        status: 'active',
        permissions: ALL_PERMISSIONS,
        storage_connection_id: tenant.storage_connection_id,
        user_id: tenant.user_id,
        rotated_from_id: null,
        created_at: timestamp,
        last_used_at: null,
        revoked_at: null,
        key: expect.stringMatching(/^tmk_[A-Za-z0-9]{8}_[A-Za-z0-9]{40}$/),
      },
    });
    expect(res.body.key.startsWith(`${res.body.prefix}_`)).toBe(true);
    const written = await write(t.api, res.body.key, namespace, 'The new key stores this note');
    const recalled = await recall(t.api, res.body.key, namespace, 'new key note');
    expect(written).toMatchObject({ status: 200, body: { state: 'retained' } });
    expect(recalled.status).toBe(200);
    expect(recalled.body.related.map((r: { text: string }) => r.text)).toEqual([
      'The new key stores this note',
    ]);
  });

  it('when a key is created with only memory:recall, then write and delete are 403 and recall is 200', async () => {
    const tenant = await tenantWithSession();
    const namespace = uniqueNamespace();
    await write(t.api, tenant.api_key, namespace, 'Stored by the bootstrap key');

    const created = await t.api.post(KEYS, {
      key: tenant.session,
      body: { name: 'reader', permissions: ['memory:recall'] },
    });
    const reader = created.body.key as string;
    const writeRes = await write(t.api, reader, namespace, 'Reader tries to write');
    const deleteRes = await t.api.deleteNamespace(reader, namespace);
    const recallRes = await recall(t.api, reader, namespace, 'bootstrap key writes');

    expect(created).toMatchObject({ status: 201, body: { permissions: ['memory:recall'] } });
    expect(writeRes).toMatchObject({
      status: 403,
      body: { retryable: false, details: { code: 'permission_denied' } },
    });
    expect(writeRes.body.error).toContain('memory:write');
    expect(deleteRes).toMatchObject({ status: 403, body: { details: { code: 'permission_denied' } } });
    expect(deleteRes.body.error).toContain('memory:delete');
    expect(recallRes.status).toBe(200);
    // The refused delete removed nothing; the refused write stored nothing.
    expect(recallRes.body.related.map((r: { text: string }) => r.text)).toEqual([
      'Stored by the bootstrap key',
    ]);
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['an unknown permission', { name: 'k', permissions: ['memory:admin'] }, 'permissions.0'],
    ['no permissions', { name: 'k', permissions: [] }, 'permissions'],
    ['an empty name', { name: '' }, 'name'],
    ['a blank name', { name: '   ' }, 'name'],
    ['an unknown field', { name: 'k', scope: 'everything' }, 'scope'],
    [
      'a storage id that is not an id',
      { name: 'k', storage_connection_id: 'managed-default' },
      'storage_connection_id',
    ],
  ];

  it.each(invalid)(
    'when the body has %s, then 400 with field details and no key is created',
    async (_label, body, path) => {
      const tenant = await tenantWithSession();

      const res = await t.api.post(KEYS, { key: tenant.session, body });

      expect(res).toMatchObject({
        status: 400,
        body: { retryable: false, details: { code: 'validation_failed', fields: expect.any(Array) } },
      });
      expect(res.body.details.fields.map((f: { path: string }) => f.path)).toContain(path);
      const list = await t.api.get(KEYS, { key: tenant.session });
      expect(list.body.data.map((k: { id: string }) => k.id)).toEqual([tenant.key_id]);
    },
  );

  it("when the storage connection is another tenant's, then 404 and no key is created", async () => {
    const tenant = await tenantWithSession();
    const other = await createTenant();

    const res = await t.api.post(KEYS, {
      key: tenant.session,
      body: { name: 'borrowed storage', storage_connection_id: other.storage_connection_id },
    });

    expect(res).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
    const list = await t.api.get(KEYS, { key: tenant.session });
    expect(list.body.data.map((k: { id: string }) => k.id)).toEqual([tenant.key_id]);
  });
});

describe('GET /api/v1/control/api-keys', () => {
  it('when keys are listed or read by id, then they are masked and the secret appears nowhere', async () => {
    const tenant = await tenantWithSession();
    const { key, ...view } = await createKey(tenant.session, { name: 'masked' });
    const secretPart = key.slice(view.prefix.length + 1);

    const list = await t.api.get(KEYS, { key: tenant.session });
    const one = await t.api.get(`${KEYS}/${view.id}`, { key: tenant.session });

    expect(list).toMatchObject({ status: 200, body: { data: expect.any(Array) } });
    expect(list.body.data.map((k: { id: string }) => k.id).sort()).toEqual([tenant.key_id, view.id].sort());
    const listed = list.body.data.find((k: { id: string }) => k.id === view.id);
    expect(listed).toEqual(asListed(view));
    expect(one).toMatchObject({ status: 200, body: view });
    for (const shown of [listed, one.body]) {
      expect(shown).not.toHaveProperty('key');
      expect(shown.masked_key.startsWith(view.prefix)).toBe(true);
      expect(shown.masked_key).not.toContain(secretPart);
    }
    for (const json of [JSON.stringify(list.body), JSON.stringify(one.body)]) {
      expect(json).not.toContain(key);
      expect(json).not.toContain(secretPart);
      expect(json).not.toContain(tenant.api_key);
    }
  });

  it("when the id is another tenant's key or not an id, then 404", async () => {
    const tenant = await tenantWithSession();
    const other = await createTenant();

    const foreign = await t.api.get(`${KEYS}/${other.key_id}`, { key: tenant.session });
    const unknown = await t.api.get(`${KEYS}/${randomUUID()}`, { key: tenant.session });

    expect(foreign).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
    expect(unknown).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
  });

  it('when a new key is used, then last_used_at goes from null to a time', async () => {
    const tenant = await tenantWithSession();
    const created = await createKey(tenant.session, { name: 'tracked' });
    const before = await t.api.get(`${KEYS}/${created.id}`, { key: tenant.session });

    const used = await recall(t.api, created.key);
    // Written off the request's path, so read until it lands.
    const after = await eventually(async () => {
      const res = await t.api.get(`${KEYS}/${created.id}`, { key: tenant.session });
      expect(res.body.last_used_at).not.toBeNull();
      return res;
    });

    expect(before).toMatchObject({ status: 200, body: { last_used_at: null } });
    expect(used.status).toBe(200);
    expect(after).toMatchObject({ status: 200, body: { id: created.id, last_used_at: timestamp } });
  });
});

describe('POST /api/v1/control/api-keys/{id}/revoke', () => {
  it('when a key both instances have used is revoked through one, then the other refuses its very next request, and revoking again changes nothing', async () => {
    const tenant = await tenantWithSession();
    const created = await createKey(tenant.session, { name: 'to revoke' });
    const warm = [await recall(t.api, created.key), await recall(second.api, created.key)];

    const revoked = await t.api.post(`${KEYS}/${created.id}/revoke`, { key: tenant.session });
    const onSecond = await recall(second.api, created.key);
    const onFirst = await write(t.api, created.key);
    const again = await second.api.post(`${KEYS}/${created.id}/revoke`, { key: tenant.session });

    expect(warm.map((r) => r.status)).toEqual([200, 200]);
    expect(revoked).toMatchObject({
      status: 200,
      body: { id: created.id, status: 'revoked', revoked_at: timestamp, name: 'to revoke' },
    });
    expect(revoked.body).not.toHaveProperty('key');
    for (const res of [onSecond, onFirst]) {
      expect(res).toMatchObject({ status: 401, body: { details: { code: 'authentication_required' } } });
    }
    expect(again).toMatchObject({ status: 200, body: settled(revoked.body) });
    const state = await t.api.get(`${KEYS}/${created.id}`, { key: tenant.session });
    expect(settled(state.body)).toEqual(settled(revoked.body));
    // Only that key: the tenant's other key still works on both instances.
    expect((await recall(second.api, tenant.api_key)).status).toBe(200);
    expect((await recall(t.api, tenant.api_key)).status).toBe(200);
  });

  it('when the same key is revoked concurrently through both instances, then every answer carries the one revoked_at', async () => {
    const tenant = await tenantWithSession();
    const created = await createKey(tenant.session, { name: 'revoked twice at once' });

    const answers = await Promise.all(
      [t.api, second.api, t.api, second.api].map((api) =>
        api.post(`${KEYS}/${created.id}/revoke`, { key: tenant.session }),
      ),
    );

    const state = await t.api.get(`${KEYS}/${created.id}`, { key: tenant.session });
    expect(state.body).toMatchObject({ status: 'revoked', revoked_at: timestamp });
    for (const res of answers) {
      expect(res).toMatchObject({
        status: 200,
        body: { id: created.id, status: 'revoked', revoked_at: state.body.revoked_at },
      });
    }
    expect((await recall(second.api, created.key)).status).toBe(401);
  });

  it("when another tenant's key is named, then 404 and the key keeps working", async () => {
    const tenant = await tenantWithSession();
    const other = await createTenant();

    const res = await t.api.post(`${KEYS}/${other.key_id}/revoke`, { key: tenant.session });

    expect(res).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
    expect((await recall(second.api, other.api_key)).status).toBe(200);
  });

  it("when a developer creates a key, then they can revoke their own but not the owner's", async () => {
    const tenant = await createTenant();
    const ownerToken = await t.api.login(tenant.owner.email, tenant.owner.password);
    const developer = await addUser(ownerToken, 'developer');
    const token = await t.api.login(developer.email, developer.password);

    const created = await t.api.post(KEYS, { key: token, body: { name: 'dev key' } });
    const worksBefore = await recallWith(created.body.key);
    const revokeOwners = await t.api.post(`${KEYS}/${tenant.key_id}/revoke`, { key: token });
    const revokeOwn = await t.api.post(`${KEYS}/${created.body.id}/revoke`, { key: token });

    expect(created).toMatchObject({
      status: 201,
      body: {
        id: expect.any(String),
        name: 'dev key',
        key: expect.stringMatching(/^tmk_/),
        status: 'active',
        user_id: developer.id,
        storage_connection_id: tenant.storage_connection_id,
      },
    });
    expect(worksBefore.status).toBe(200);
    expect(revokeOwners).toMatchObject(PERMISSION_DENIED);
    expect(revokeOwn).toMatchObject({
      status: 200,
      body: { id: created.body.id, status: 'revoked', revoked_at: expect.stringMatching(ISO_TIMESTAMP) },
    });
    expect(await recallWith(created.body.key)).toMatchObject(UNAUTHENTICATED);
    expect((await recallWith(tenant.api_key)).status).toBe(200);
    expect(await t.api.get(`${KEYS}/${tenant.key_id}`, { key: ownerToken })).toMatchObject({
      status: 200,
      body: { status: 'active', revoked_at: null },
    });
  });
});

// The admin CLI's `revoke` (an operator, no session) goes through the same broadcast as the route.

describe('API-key revocation by the admin command across gateway instances', () => {
  it('when a key both instances have verified is revoked through one, then the other refuses its next request', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const warm = [
      await recall(t.api, tenant.api_key),
      await recall(second.api, tenant.api_key),
      await recall(second.api, other.api_key),
    ];

    await revokeApiKey({ tenantId: tenant.tenant_id, keyId: tenant.key_id }, { nc: t.stack.gateway.nc });
    const onFirst = await recall(t.api, tenant.api_key);
    const onSecond = await recall(second.api, tenant.api_key);
    const otherTenant = await recall(second.api, other.api_key);

    expect(warm.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const res of [onFirst, onSecond]) {
      expect(res).toMatchObject({ status: 401, body: { details: { code: 'authentication_required' } } });
    }
    expect(otherTenant.status).toBe(200);
  });

  it('when another tenant names the key, then nothing is revoked', async () => {
    const owner = await createTenant();
    const intruder = await createTenant();

    const revoked = await revokeApiKey(
      { tenantId: intruder.tenant_id, keyId: owner.key_id },
      { nc: t.stack.gateway.nc },
    );
    const res = await second.api.recall(owner.api_key, recallBody(uniqueNamespace(), 'x'));

    expect(revoked).toBe(false);
    expect(res.status).toBe(200);
  });
});

describe('POST /api/v1/control/api-keys/{id}/rotate', () => {
  it('when a key is rotated, then a new key with the same settings works, the old one is refused on both instances, and it cannot be rotated again', async () => {
    const tenant = await tenantWithSession();
    const namespace = uniqueNamespace();
    const old = await createKey(tenant.session, {
      name: 'rotating',
      permissions: ['memory:write', 'memory:recall'],
    });
    const warm = [await recall(t.api, old.key), await recall(second.api, old.key)];

    const rotated = await t.api.post(`${KEYS}/${old.id}/rotate`, { key: tenant.session });
    const oldOnFirst = await recall(t.api, old.key);
    const oldOnSecond = await recall(second.api, old.key);
    const newWrite = await write(second.api, rotated.body.key, namespace, 'Written with the rotated key');
    const newRecall = await recall(t.api, rotated.body.key, namespace, 'rotated key');
    const rotateAgain = await t.api.post(`${KEYS}/${old.id}/rotate`, { key: tenant.session });

    expect(warm.map((r) => r.status)).toEqual([200, 200]);
    expect(rotated).toMatchObject({
      status: 201,
      body: {
        id: expect.any(String),
        name: 'rotating',
        status: 'active',
        permissions: ['memory:write', 'memory:recall'],
        storage_connection_id: tenant.storage_connection_id,
        user_id: tenant.user_id,
        rotated_from_id: old.id,
        last_used_at: null,
        revoked_at: null,
        key: expect.stringMatching(/^tmk_/),
      },
    });
    expect(rotated.body.id).not.toBe(old.id);
    expect(rotated.body.key).not.toBe(old.key);
    expect(rotated.body.key.startsWith(`${rotated.body.prefix}_`)).toBe(true);
    for (const res of [oldOnFirst, oldOnSecond]) {
      expect(res).toMatchObject({ status: 401, body: { details: { code: 'authentication_required' } } });
    }
    expect(newWrite).toMatchObject({ status: 200, body: { state: 'retained' } });
    expect(newRecall.body.related.map((r: { text: string }) => r.text)).toEqual([
      'Written with the rotated key',
    ]);
    expect(rotateAgain).toMatchObject({
      status: 409,
      body: { retryable: false, details: { code: 'already_exists' } },
    });
    const oldState = await t.api.get(`${KEYS}/${old.id}`, { key: tenant.session });
    expect(oldState.body).toMatchObject({ status: 'revoked', revoked_at: timestamp });
    const list = await t.api.get(KEYS, { key: tenant.session });
    expect(list.body.data.map((k: { id: string }) => k.id).sort()).toEqual(
      [tenant.key_id, old.id, rotated.body.id].sort(),
    );
  });
});

describe('PATCH /api/v1/control/api-keys/{id}', () => {
  it('when memory:write is added to a recall-only key, then it can write at once on both instances', async () => {
    const tenant = await tenantWithSession();
    const namespace = uniqueNamespace();
    const reader = await createKey(tenant.session, { name: 'reader', permissions: ['memory:recall'] });
    // Both instances have verified the key with its old permissions.
    const refused = [
      await write(t.api, reader.key, namespace),
      await write(second.api, reader.key, namespace),
    ];

    const patched = await t.api.patch(`${KEYS}/${reader.id}`, {
      key: tenant.session,
      body: { permissions: ['memory:recall', 'memory:write'] },
    });
    const onSecond = await write(second.api, reader.key, namespace, 'Second instance accepts the write');
    const onFirst = await write(t.api, reader.key, namespace, 'First instance accepts the write');

    for (const res of refused) {
      expect(res).toMatchObject({ status: 403, body: { details: { code: 'permission_denied' } } });
    }
    expect(patched).toMatchObject({
      status: 200,
      body: {
        id: reader.id,
        name: 'reader',
        status: 'active',
        permissions: ['memory:recall', 'memory:write'],
      },
    });
    expect(onSecond).toMatchObject({ status: 200, body: { state: 'retained' } });
    expect(onFirst).toMatchObject({ status: 200, body: { state: 'retained' } });
    const state = await t.api.get(`${KEYS}/${reader.id}`, { key: tenant.session });
    expect(settled(state.body)).toEqual(settled(patched.body));
  });

  it('when the body changes nothing or names an unknown permission, then 400 and the key is unchanged', async () => {
    const tenant = await tenantWithSession();
    const before = await t.api.get(`${KEYS}/${tenant.key_id}`, { key: tenant.session });

    const empty = await t.api.patch(`${KEYS}/${tenant.key_id}`, { key: tenant.session, body: {} });
    const unknown = await t.api.patch(`${KEYS}/${tenant.key_id}`, {
      key: tenant.session,
      body: { permissions: ['memory:everything'] },
    });

    expect(empty).toMatchObject({ status: 400, body: { details: { code: 'validation_failed' } } });
    expect(unknown).toMatchObject({
      status: 400,
      body: { details: { code: 'validation_failed', fields: [{ path: 'permissions.0' }] } },
    });
    const after = await t.api.get(`${KEYS}/${tenant.key_id}`, { key: tenant.session });
    expect(after.body).toEqual(before.body);
  });
});

describe('DELETE /api/v1/control/api-keys/{id}/storage-connection', () => {
  it('when the storage is detached, then memory requests are 403 storage_not_attached; when attached again, then they work', async () => {
    const tenant = await tenantWithSession();
    const namespace = uniqueNamespace();
    const warm = [await recall(t.api, tenant.api_key), await recall(second.api, tenant.api_key)];

    const detached = await t.api.delete(`${KEYS}/${tenant.key_id}/storage-connection`, {
      key: tenant.session,
    });
    const refusedWrite = await write(second.api, tenant.api_key, namespace, 'Written while detached');
    const refusedRecall = await recall(t.api, tenant.api_key, namespace);
    const attached = await t.api.put(`${KEYS}/${tenant.key_id}/storage-connection`, {
      key: tenant.session,
      body: { storage_connection_id: tenant.storage_connection_id },
    });
    const written = await write(second.api, tenant.api_key, namespace, 'Written after attaching again');
    const recalled = await recall(t.api, tenant.api_key, namespace, 'written attaching detached');

    expect(warm.map((r) => r.status)).toEqual([200, 200]);
    expect(detached).toMatchObject({
      status: 200,
      body: { id: tenant.key_id, status: 'active', storage_connection_id: null },
    });
    for (const res of [refusedWrite, refusedRecall]) {
      expect(res).toMatchObject({
        status: 403,
        body: { retryable: false, details: { code: 'storage_not_attached' } },
      });
    }
    expect(attached).toMatchObject({
      status: 200,
      body: { id: tenant.key_id, storage_connection_id: tenant.storage_connection_id },
    });
    expect(written).toMatchObject({ status: 200, body: { state: 'retained' } });
    expect(recalled.body.related.map((r: { text: string }) => r.text)).toEqual([
      'Written after attaching again',
    ]);
    const state = await t.api.get(`${KEYS}/${tenant.key_id}`, { key: tenant.session });
    expect(settled(state.body)).toEqual(settled(attached.body));
  });

  it("when another tenant's storage connection is attached, then 404 and the key keeps its own", async () => {
    const tenant = await tenantWithSession();
    const other = await createTenant();

    const res = await t.api.put(`${KEYS}/${tenant.key_id}/storage-connection`, {
      key: tenant.session,
      body: { storage_connection_id: other.storage_connection_id },
    });

    expect(res).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
    const state = await t.api.get(`${KEYS}/${tenant.key_id}`, { key: tenant.session });
    expect(state.body.storage_connection_id).toBe(tenant.storage_connection_id);
    expect((await recall(t.api, tenant.api_key)).status).toBe(200);
  });
});
