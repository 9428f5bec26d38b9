import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ACCOUNT,
  API_KEYS,
  controlSteps,
  ISO_TIMESTAMP,
  NOT_ACCEPTED,
  PASSWORD,
  PERMISSION_DENIED,
  UNAUTHENTICATED,
} from '../support/control.js';
import { KEY_NOT_ACCEPTED, NO_CREDENTIAL } from '../support/credential-refusals.js';
import { createTenant } from '../support/factories.js';
import { useStack } from '../support/stack.js';

const t = useStack();
const { login, account } = controlSteps(t);
/** LOGIN_ATTEMPTS_PER_15_MINUTES's default: wrong current passwords count like failed logins. */
const LOGIN_ATTEMPTS_PER_ACCOUNT = 10;

/** The owner role's permissions, written out here so a change to the table is a visible test change. */
const OWNER_PERMISSIONS = [
  'memory:write',
  'memory:recall',
  'memory:delete',
  'account:read',
  'users:read',
  'users:manage',
  'keys:read',
  'keys:manage',
  'storage:read',
  'storage:manage',
  'operator-tokens:manage',
  'usage:read',
  'telemetry:read',
  'export:read',
  'billing:read',
  'billing:void',
  'billing:invoice',
  'webhooks:manage',
];

describe('GET /api/v1/control/account', () => {
  it('when called with a session, then 200 with the tenant, the user, their consent and the owner permissions', async () => {
    const tenant = await createTenant();
    const session = await login(tenant.owner.email, tenant.owner.password);

    const res = await account(session.body.token);

    expect(res).toMatchObject({
      status: 200,
      body: {
        tenant: { id: tenant.tenant_id, name: session.body.tenant.name },
        user: {
          id: tenant.user_id,
          email: tenant.owner.email,
          role: 'owner',
          status: 'active',
          created_at: session.body.user.created_at,
        },
        consent: {
          purpose: 'private_memory',
          state: 'granted',
          updated_at: expect.stringMatching(ISO_TIMESTAMP),
        },
        session: { expires_at: session.body.expires_at },
      },
    });
    expect(res.body.permissions).toEqual(OWNER_PERMISSIONS);
  });

  it('when called with an API key, then 403 credential_not_accepted', async () => {
    const tenant = await createTenant();

    const res = await account(tenant.api_key);

    expect(res).toMatchObject(NOT_ACCEPTED);
    expect(res.body.error).toMatch(/session token/);
  });

  it('when called with a revoked or an unknown API key, then 401', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const revoked = await t.api.post(`${API_KEYS}/${tenant.key_id}/revoke`, { key: token });

    const withRevoked = await account(tenant.api_key);
    const withUnknown = await account('tmk_AAAAAAAA_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    const withGarbage = await account('tmk_garbage');

    expect(revoked).toMatchObject({ status: 200, body: { id: tenant.key_id, status: 'revoked' } });
    for (const res of [withRevoked, withUnknown, withGarbage])
      expect(res).toMatchObject({
        ...UNAUTHENTICATED,
        body: { ...UNAUTHENTICATED.body, error: KEY_NOT_ACCEPTED },
      });
  });

  it('when called without a credential, then 401 asking for one', async () => {
    const res = await t.api.get(ACCOUNT);

    expect(res).toMatchObject({
      ...UNAUTHENTICATED,
      body: { ...UNAUTHENTICATED.body, error: NO_CREDENTIAL },
    });
  });
});

describe('POST /api/v1/control/account/password', () => {
  it('when the current password is wrong, then 403 and the old password still works', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);

    const res = await t.api.post(PASSWORD, {
      key: token,
      body: { current_password: 'not-the-password', new_password: `pw-${randomUUID()}` },
    });

    expect(res).toMatchObject(PERMISSION_DENIED);
    expect((await account(token)).status).toBe(200);
    expect((await login(tenant.owner.email, tenant.owner.password)).status).toBe(201);
  });

  it('when the current password has been wrong as often as a login may fail, then the next change is 429 with Retry-After even with the right password, and the password is unchanged', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const change = (current: string) =>
      t.api.post(PASSWORD, {
        key: token,
        body: { current_password: current, new_password: `pw-${randomUUID()}` },
      });
    const wrong: number[] = [];
    for (let i = 0; i < LOGIN_ATTEMPTS_PER_ACCOUNT; i++)
      wrong.push((await change(`wrong-${i}-guess`)).status);

    const refused = await change(tenant.owner.password);

    expect(wrong).toEqual(Array(LOGIN_ATTEMPTS_PER_ACCOUNT).fill(403));
    expect(refused).toMatchObject({
      status: 429,
      headers: { 'retry-after': expect.stringMatching(/^[1-9]\d*$/) },
      body: {
        error: expect.stringMatching(/for this account; try again in \d+ minutes$/),
        retryable: true,
        details: { code: 'rate_limited' },
      },
    });
    expect((await account(token)).status).toBe(200);
    expect((await login(tenant.owner.email, tenant.owner.password)).status).toBe(201);
  });

  it('when the current password is right, then 204, other sessions end, this one stays, and only the new password logs in', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const otherToken = await t.api.login(tenant.owner.email, tenant.owner.password);
    const newPassword = `pw-${randomUUID()}`;

    const res = await t.api.post(PASSWORD, {
      key: token,
      body: { current_password: tenant.owner.password, new_password: newPassword },
    });

    expect(res.status).toBe(204);
    expect(await account(otherToken)).toMatchObject(UNAUTHENTICATED);
    expect((await account(token)).status).toBe(200);
    expect(await login(tenant.owner.email, tenant.owner.password)).toMatchObject(UNAUTHENTICATED);
    expect(await login(tenant.owner.email, newPassword)).toMatchObject({
      status: 201,
      body: { user: { id: tenant.user_id } },
    });
  });

  it('when the new password is too short or a field is unknown, then 400 and the password is unchanged', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);

    const short = await t.api.post(PASSWORD, {
      key: token,
      body: { current_password: tenant.owner.password, new_password: 'short' },
    });
    const extra = await t.api.post(PASSWORD, {
      key: token,
      body: { current_password: tenant.owner.password, new_password: `pw-${randomUUID()}`, confirm: 'x' },
    });

    expect(short).toMatchObject({
      status: 400,
      body: { details: { code: 'validation_failed', fields: [{ path: 'new_password' }] } },
    });
    expect(extra).toMatchObject({
      status: 400,
      body: {
        details: {
          code: 'validation_failed',
          fields: [{ path: 'confirm', message: 'is not a known field' }],
        },
      },
    });
    expect((await login(tenant.owner.email, tenant.owner.password)).status).toBe(201);
  });
});
