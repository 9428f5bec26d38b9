import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';

const t = useStack();

const KEYS = '/api/v1/control/api-keys';
const USERS = '/api/v1/control/users';
const EXPORT = '/api/v1/infrastructure/export';
const PERMISSIONS = [
  'memory:write',
  'memory:recall',
  'memory:delete',
  'telemetry:read',
  'export:read',
] as const;
type Permission = (typeof PERMISSIONS)[number];
type Role = 'owner' | 'admin' | 'developer' | 'viewer';

/** The role table of docs/decisions/control-plane.md, as a key sees it: what a key of a user of each role may hold. */
const KEY_PERMISSIONS_OF: Record<Role, readonly Permission[]> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS,
  developer: ['memory:write', 'memory:recall', 'memory:delete', 'telemetry:read'],
  viewer: [], // a viewer manages no keys at all
};

/** A tenant with one signed-in user of each role. */
async function tenantWithRoles() {
  const tenant = await createTenant();
  const owner = await t.api.login(tenant.owner.email, tenant.owner.password);
  const sessions: Record<Role, string> = { owner, admin: '', developer: '', viewer: '' };
  const userIds: Partial<Record<Role, string>> = { owner: tenant.user_id };
  for (const role of ['admin', 'developer', 'viewer'] as const) {
    const email = `${role}-${randomUUID().slice(0, 8)}@example.test`;
    const password = `pw-${randomUUID()}`;
    const created = await t.api.post(USERS, { key: owner, body: { email, password, role } });
    expect(created.status).toBe(201);
    userIds[role] = created.body.id;
    sessions[role] = await t.api.login(email, password);
    // Their own private-memory consent, so their keys' writes are retained.
    expect((await t.api.post('/api/v1/control/consent/grant', { key: sessions[role] })).status).toBe(200);
  }
  return { tenant, sessions, userIds: userIds as Record<Role, string> };
}

describe('API key permissions are bounded by the role (the role table is the one rule)', () => {
  it('when each role creates a key with each permission, then exactly the pairs its role allows are 201 and the rest 403', async () => {
    const { sessions } = await tenantWithRoles();
    for (const role of ['owner', 'admin', 'developer', 'viewer'] as const) {
      for (const permission of PERMISSIONS) {
        const res = await t.api.post(KEYS, {
          key: sessions[role],
          body: { name: `${role} ${permission}`, permissions: [permission] },
        });
        const allowed = KEY_PERMISSIONS_OF[role].includes(permission);
        expect({ role, permission, status: res.status }).toEqual({
          role,
          permission,
          status: allowed ? 201 : 403,
        });
        if (allowed) expect(res.body.permissions).toEqual([permission]);
        else expect(res.body.details.code).toBe('permission_denied');
      }
    }
  });

  it('when each role widens its own key to each permission, then exactly the pairs its role allows are 200 and the rest 403, the key unchanged', async () => {
    const { sessions } = await tenantWithRoles();
    for (const role of ['owner', 'admin', 'developer'] as const) {
      const created = await t.api.post(KEYS, {
        key: sessions[role],
        body: { name: `${role} key`, permissions: ['telemetry:read'] },
      });
      expect(created.status).toBe(201);
      for (const permission of PERMISSIONS) {
        const res = await t.api.patch(`${KEYS}/${created.body.id}`, {
          key: sessions[role],
          body: { permissions: [permission] },
        });
        const allowed = KEY_PERMISSIONS_OF[role].includes(permission);
        expect({ role, permission, status: res.status }).toEqual({
          role,
          permission,
          status: allowed ? 200 : 403,
        });
        const now = await t.api.get(`${KEYS}/${created.body.id}`, { key: sessions[role] });
        expect(now.body.permissions).toEqual(allowed ? [permission] : now.body.permissions);
        if (!allowed) expect(now.body.permissions).not.toContain(permission);
      }
    }
    // A viewer cannot re-permission anyone's key.
    const ownerKey = await t.api.post(KEYS, {
      key: sessions.owner,
      body: { name: 'o', permissions: ['telemetry:read'] },
    });
    const byViewer = await t.api.patch(`${KEYS}/${ownerKey.body.id}`, {
      key: sessions.viewer,
      body: { permissions: ['telemetry:read'] },
    });
    expect(byViewer.status).toBe(403);
  });

  it('when a developer, refused export, makes a key and patches it to every permission, then 403 and the key cannot export', async () => {
    const { sessions } = await tenantWithRoles();
    const namespace = uniqueNamespace('escalate');

    expect((await t.api.get(EXPORT, { key: sessions.developer, query: { namespace } })).status).toBe(403);
    const created = await t.api.post(KEYS, { key: sessions.developer, body: { name: 'mine' } });
    expect(created).toMatchObject({
      status: 201,
      body: { permissions: ['memory:write', 'memory:recall', 'memory:delete', 'telemetry:read'] },
    });
    const widened = await t.api.patch(`${KEYS}/${created.body.id}`, {
      key: sessions.developer,
      body: { permissions: [...PERMISSIONS] },
    });
    expect(widened).toMatchObject({
      status: 403,
      body: {
        error: expect.stringContaining('export:read'),
        details: {
          code: 'permission_denied',
          fields: [{ path: 'permissions', message: expect.any(String) }],
        },
      },
    });

    const exported = await t.api.get(EXPORT, { key: created.body.key, query: { namespace } });
    expect(exported).toMatchObject({ status: 403, body: { details: { code: 'permission_denied' } } });
    // What the role allows still works with the key.
    const written = await t.api.write(
      created.body.key,
      writeBody(namespace, 'a developer note'),
      uniqueKey(),
    );
    expect(written).toMatchObject({ status: 200, body: { state: 'retained' } });
  });

  it('when an owner gives a developer’s key export:read, then 403: a key holds no more than its user’s role', async () => {
    const { sessions } = await tenantWithRoles();
    const created = await t.api.post(KEYS, { key: sessions.developer, body: { name: 'dev key' } });
    const res = await t.api.patch(`${KEYS}/${created.body.id}`, {
      key: sessions.owner,
      body: { permissions: ['memory:recall', 'export:read'] },
    });
    expect(res).toMatchObject({ status: 403, body: { details: { code: 'permission_denied' } } });
  });

  it('when an admin with an exporting key is made a developer, then that key can no longer export but still recalls', async () => {
    const { sessions, userIds } = await tenantWithRoles();
    const namespace = uniqueNamespace('demoted');
    const created = await t.api.post(KEYS, { key: sessions.admin, body: { name: 'admin key' } });
    expect(created.body.permissions).toEqual([...PERMISSIONS]);
    await t.api.write(created.body.key, writeBody(namespace, 'kept by an admin'), uniqueKey());
    expect((await t.api.get(EXPORT, { key: created.body.key, query: { namespace } })).status).toBe(200);

    const demoted = await t.api.patch(`${USERS}/${userIds.admin}`, {
      key: sessions.owner,
      body: { role: 'developer' },
    });
    expect(demoted.status).toBe(200);

    const exported = await t.api.get(EXPORT, { key: created.body.key, query: { namespace } });
    expect(exported).toMatchObject({ status: 403, body: { details: { code: 'permission_denied' } } });
    const recalled = await t.api.recall(created.body.key, recallBody(namespace, 'admin'));
    expect(recalled).toMatchObject({ status: 200, body: { state: 'retained' } });
  });
});

// an admin rotated the owner's key and was handed the new one, so writes and exports ran as
// the owner. Acting on another user's key follows the rule for managing that user: only an owner
// manages an owner; developers manage only their own keys.
describe("Acting on another user's API key follows the rule for managing that user", () => {
  const recallsWith = async (key: string) =>
    (await t.api.recall(key, recallBody(uniqueNamespace('still'), 'anything'))).status;

  it("when an admin rotates, revokes or edits the owner's key, then 403 each and nothing changed: the old key still works", async () => {
    const { tenant, sessions } = await tenantWithRoles();
    const ownerKey = `${KEYS}/${tenant.key_id}`;
    const before = await t.api.get(ownerKey, { key: sessions.owner });

    const rotated = await t.api.post(`${ownerKey}/rotate`, { key: sessions.admin });
    const revoked = await t.api.post(`${ownerKey}/revoke`, { key: sessions.admin });
    const renamed = await t.api.patch(ownerKey, { key: sessions.admin, body: { name: 'mine now' } });
    const detached = await t.api.delete(`${ownerKey}/storage-connection`, { key: sessions.admin });

    for (const res of [rotated, revoked, renamed, detached]) {
      expect(res).toMatchObject({
        status: 403,
        body: {
          error: "Only an owner can manage an owner's API keys",
          retryable: false,
          details: { code: 'permission_denied' },
        },
      });
      expect(res.body).not.toHaveProperty('key');
    }
    expect(await t.api.get(ownerKey, { key: sessions.owner })).toMatchObject({
      status: 200,
      body: before.body,
    });
    const keys = await t.api.get(KEYS, { key: sessions.owner });
    expect(keys.body.data.filter((k: { rotated_from_id: string | null }) => k.rotated_from_id)).toEqual([]);
    expect(await recallsWith(tenant.api_key)).toBe(200);
  });

  it("when an admin rotates their own key or a developer's, then 201 with the new key, which acts for the key's user", async () => {
    const { sessions, userIds } = await tenantWithRoles();
    const own = await t.api.post(KEYS, { key: sessions.admin, body: { name: 'admin key' } });
    const developers = await t.api.post(KEYS, { key: sessions.developer, body: { name: 'dev key' } });

    const rotatedOwn = await t.api.post(`${KEYS}/${own.body.id}/rotate`, { key: sessions.admin });
    const rotatedDevelopers = await t.api.post(`${KEYS}/${developers.body.id}/rotate`, {
      key: sessions.admin,
    });

    expect(rotatedOwn).toMatchObject({
      status: 201,
      body: { user_id: userIds.admin, rotated_from_id: own.body.id, key: expect.stringMatching(/^tmk_/) },
    });
    expect(rotatedDevelopers).toMatchObject({
      status: 201,
      body: {
        user_id: userIds.developer,
        rotated_from_id: developers.body.id,
        key: expect.stringMatching(/^tmk_/),
      },
    });
    expect(await recallsWith(rotatedDevelopers.body.key)).toBe(200);
    expect(await recallsWith(developers.body.key)).toBe(401);
  });

  it("when the owner rotates an admin's key, then 201; when a developer rotates the admin's key, then 403", async () => {
    const { sessions, userIds } = await tenantWithRoles();
    const first = await t.api.post(KEYS, { key: sessions.admin, body: { name: 'admin key' } });

    const byDeveloper = await t.api.post(`${KEYS}/${first.body.id}/rotate`, { key: sessions.developer });
    const byOwner = await t.api.post(`${KEYS}/${first.body.id}/rotate`, { key: sessions.owner });

    expect(byDeveloper).toMatchObject({ status: 403, body: { details: { code: 'permission_denied' } } });
    expect(byOwner).toMatchObject({
      status: 201,
      body: { user_id: userIds.admin, rotated_from_id: first.body.id },
    });
  });
});
