import { randomUUID } from 'node:crypto';
import type { Role } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { asListed } from '../support/contract.js';
import {
  API_KEYS,
  controlSteps,
  ISO_TIMESTAMP,
  PERMISSION_DENIED,
  suffix,
  UNAUTHENTICATED,
  USERS,
} from '../support/control.js';
import { createTenant } from '../support/factories.js';
import { useSecondGateway, useStack } from '../support/stack.js';

const t = useStack();
const { login, account, addUser, recallWith } = controlSteps(t);

describe('POST /api/v1/control/users', () => {
  it('when the owner adds a viewer, a developer and an admin, then 201 each and the tenant lists all four', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const roles: Role[] = ['viewer', 'developer', 'admin'];
    const emails = roles.map((role) => `${role}-${suffix()}@Example.TEST`);

    const created = [];
    for (const [i, role] of roles.entries()) {
      created.push(
        await t.api.post(USERS, {
          key: token,
          body: { email: emails[i], password: `pw-${randomUUID()}`, role },
        }),
      );
    }

    for (const [i, res] of created.entries()) {
      expect(res).toMatchObject({
        status: 201,
        body: {
          id: expect.any(String),
          email: emails[i]?.toLowerCase(),
          role: roles[i],
          status: 'active',
          created_at: expect.stringMatching(ISO_TIMESTAMP),
        },
      });
    }
    const list = await t.api.get(USERS, { key: token });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(4);
    expect(list.body.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: tenant.user_id, role: 'owner' }),
        ...created.map((res) => expect.objectContaining(asListed(res.body))),
      ]),
    );
  });

  it('when the email is taken, then 409 already_exists and no second user appears', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const viewer = await addUser(token, 'viewer');

    const again = await t.api.post(USERS, {
      key: token,
      body: { email: viewer.email.toUpperCase(), password: `pw-${randomUUID()}`, role: 'admin' },
    });
    const ownersEmail = await t.api.post(USERS, {
      key: token,
      body: { email: tenant.owner.email, password: `pw-${randomUUID()}`, role: 'viewer' },
    });

    for (const res of [again, ownersEmail]) {
      expect(res).toMatchObject({
        status: 409,
        body: { retryable: false, details: { code: 'already_exists' } },
      });
    }
    const list = await t.api.get(USERS, { key: token });
    expect(list.body.data).toHaveLength(2);
    expect((await login(viewer.email, viewer.password)).body.user).toMatchObject({
      id: viewer.id,
      role: 'viewer',
    });
  });

  it('when the body is invalid, then 400 naming each field', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);

    const shortPassword = await t.api.post(USERS, {
      key: token,
      body: { email: `u-${suffix()}@example.test`, password: 'short', role: 'viewer' },
    });
    const unknownField = await t.api.post(USERS, {
      key: token,
      body: {
        email: `u-${suffix()}@example.test`,
        password: `pw-${randomUUID()}`,
        role: 'viewer',
        team: 'x',
      },
    });
    const unknownRole = await t.api.post(USERS, {
      key: token,
      body: { email: `u-${suffix()}@example.test`, password: `pw-${randomUUID()}`, role: 'root' },
    });

    expect(shortPassword).toMatchObject({
      status: 400,
      body: { details: { code: 'validation_failed', fields: [{ path: 'password' }] } },
    });
    expect(unknownField).toMatchObject({
      status: 400,
      body: {
        details: {
          code: 'validation_failed',
          fields: [{ path: 'team', message: 'is not a known field' }],
        },
      },
    });
    expect(unknownRole).toMatchObject({
      status: 400,
      body: { details: { code: 'validation_failed', fields: [{ path: 'role' }] } },
    });
    expect((await t.api.get(USERS, { key: token })).body.data).toHaveLength(1);
  });

  it('when a viewer signs in, then they can read keys but not create keys or users', async () => {
    const tenant = await createTenant();
    const ownerToken = await t.api.login(tenant.owner.email, tenant.owner.password);
    const viewer = await addUser(ownerToken, 'viewer');
    const token = await t.api.login(viewer.email, viewer.password);

    const createKey = await t.api.post(API_KEYS, { key: token, body: { name: 'viewer key' } });
    const listKeys = await t.api.get(API_KEYS, { key: token });
    const createUser = await t.api.post(USERS, {
      key: token,
      body: { email: `u-${suffix()}@example.test`, password: `pw-${randomUUID()}`, role: 'viewer' },
    });

    expect(createKey).toMatchObject(PERMISSION_DENIED);
    expect(listKeys).toMatchObject({
      status: 200,
      body: { data: [{ id: tenant.key_id, user_id: tenant.user_id, status: 'active' }] },
    });
    expect(createUser).toMatchObject(PERMISSION_DENIED);
    expect((await t.api.get(USERS, { key: ownerToken })).body.data).toHaveLength(2);
    expect((await t.api.get(API_KEYS, { key: ownerToken })).body.data).toHaveLength(1);
  });

  it('when an admin adds an owner or changes the owner, then 403 and the tenant still has one owner', async () => {
    const tenant = await createTenant();
    const ownerToken = await t.api.login(tenant.owner.email, tenant.owner.password);
    const admin = await addUser(ownerToken, 'admin');
    const token = await t.api.login(admin.email, admin.password);

    const addOwner = await t.api.post(USERS, {
      key: token,
      body: { email: `u-${suffix()}@example.test`, password: `pw-${randomUUID()}`, role: 'owner' },
    });
    const promoteSelf = await t.api.patch(`${USERS}/${admin.id}`, { key: token, body: { role: 'owner' } });
    const disableOwner = await t.api.patch(`${USERS}/${tenant.user_id}`, {
      key: token,
      body: { status: 'disabled' },
    });
    const addViewer = await t.api.post(USERS, {
      key: token,
      body: { email: `u-${suffix()}@example.test`, password: `pw-${randomUUID()}`, role: 'viewer' },
    });

    for (const res of [addOwner, promoteSelf, disableOwner]) expect(res).toMatchObject(PERMISSION_DENIED);
    expect(addViewer).toMatchObject({ status: 201, body: { role: 'viewer' } });
    const users = (await t.api.get(USERS, { key: ownerToken })).body.data as Array<{
      role: string;
      status: string;
    }>;
    expect(users.filter((u) => u.role === 'owner')).toEqual([
      expect.objectContaining({ id: tenant.user_id, status: 'active' }),
    ]);
    expect((await account(ownerToken)).status).toBe(200);
  });
});

describe('PATCH /api/v1/control/users/{id}', () => {
  it('when the only owner demotes or disables themselves, then 403 and they are still an active owner', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);

    const demote = await t.api.patch(`${USERS}/${tenant.user_id}`, { key: token, body: { role: 'admin' } });
    const disable = await t.api.patch(`${USERS}/${tenant.user_id}`, {
      key: token,
      body: { status: 'disabled' },
    });

    for (const res of [demote, disable]) {
      expect(res).toMatchObject(PERMISSION_DENIED);
      expect(res.body.error).toMatch(/owner/);
    }
    expect(await account(token)).toMatchObject({
      status: 200,
      body: { user: { role: 'owner', status: 'active' } },
    });
    expect(await t.api.get(`${USERS}/${tenant.user_id}`, { key: token })).toMatchObject({
      status: 200,
      body: { id: tenant.user_id, role: 'owner', status: 'active' },
    });
  });

  it('when two owners disable each other at once, then one change is refused and one active owner remains', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const secondOwner = await addUser(token, 'owner');
    const admin = await addUser(token, 'admin');
    const secondToken = await t.api.login(secondOwner.email, secondOwner.password);
    const adminToken = await t.api.login(admin.email, admin.password);

    const results = await Promise.all([
      t.api.patch(`${USERS}/${secondOwner.id}`, { key: token, body: { status: 'disabled' } }),
      t.api.patch(`${USERS}/${tenant.user_id}`, { key: secondToken, body: { status: 'disabled' } }),
    ]);

    // Exactly one change wins. The other is refused either inside the tenant's lock (403: it would
    // leave no active owner) or, when the winner committed before it was even authenticated, because
    // its own owner is disabled by then and their session ended with it (401).
    const [won, refused] = [...results].sort((a, b) => a.status - b.status);
    expect(won?.status).toBe(200);
    if (refused?.status === 401) expect(refused).toMatchObject(UNAUTHENTICATED);
    else expect(refused).toMatchObject(PERMISSION_DENIED);
    const users = (await t.api.get(USERS, { key: adminToken })).body.data as Array<{
      role: string;
      status: string;
    }>;
    expect(users.filter((u) => u.role === 'owner' && u.status === 'active')).toHaveLength(1);
  });

  it("when the id is another tenant's user, then 404 and that user is unchanged", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const otherToken = await t.api.login(other.owner.email, other.owner.password);

    const read = await t.api.get(`${USERS}/${other.user_id}`, { key: token });
    const change = await t.api.patch(`${USERS}/${other.user_id}`, {
      key: token,
      body: { status: 'disabled' },
    });

    for (const res of [read, change]) {
      expect(res).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
    }
    expect(await account(otherToken)).toMatchObject({ status: 200, body: { user: { status: 'active' } } });
  });
});

describe('PATCH /api/v1/control/users/{id} with status disabled', () => {
  const second = useSecondGateway(t);

  it('when the owner disables a user, then their session and their API key get 401 on every instance and they cannot log in', async () => {
    const tenant = await createTenant();
    const ownerToken = await t.api.login(tenant.owner.email, tenant.owner.password);
    const developer = await addUser(ownerToken, 'developer');
    const token = await t.api.login(developer.email, developer.password);
    const created = await t.api.post(API_KEYS, { key: token, body: { name: 'dev key' } });
    const warm = [
      await recallWith(created.body.key),
      await recallWith(created.body.key, second.api),
      await account(token),
      await account(token, second.api),
    ];

    const res = await t.api.patch(`${USERS}/${developer.id}`, {
      key: ownerToken,
      body: { status: 'disabled' },
    });

    expect(warm.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(res).toMatchObject({
      status: 200,
      body: { id: developer.id, email: developer.email, role: 'developer', status: 'disabled' },
    });
    expect(await account(token)).toMatchObject(UNAUTHENTICATED);
    expect(await account(token, second.api)).toMatchObject(UNAUTHENTICATED);
    expect(await recallWith(created.body.key)).toMatchObject(UNAUTHENTICATED);
    expect(await recallWith(created.body.key, second.api)).toMatchObject(UNAUTHENTICATED);
    const relogin = await login(developer.email, developer.password);
    expect(relogin).toMatchObject(UNAUTHENTICATED);
    expect(relogin.body).not.toHaveProperty('token');
    expect(await t.api.get(`${USERS}/${developer.id}`, { key: ownerToken })).toMatchObject({
      status: 200,
      body: { status: 'disabled' },
    });
    expect((await recallWith(tenant.api_key, second.api)).status).toBe(200);
  });
});
