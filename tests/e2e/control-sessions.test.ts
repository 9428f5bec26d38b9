import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Role } from '@tm/contracts';
import { deriveGatewaySecrets } from '@tm/gateway';
import { describe, expect, it } from 'vitest';
import type { Api } from './support/api.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from './support/factories.js';
import { useSecondGateway, useStack } from './support/stack.js';

// Low enough to reach in a test; every test uses its own addresses, so no other test comes near it.
const LOGIN_ATTEMPTS = 5;
const t = useStack({ gatewayEnv: { LOGIN_ATTEMPTS_PER_15_MINUTES: String(LOGIN_ATTEMPTS) } });

const SESSIONS = '/api/v1/control/sessions';
const CURRENT_SESSION = '/api/v1/control/sessions/current';
const ACCOUNT = '/api/v1/control/account';
const PASSWORD = '/api/v1/control/account/password';
const USERS = '/api/v1/control/users';
const API_KEYS = '/api/v1/control/api-keys';

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
];

const UNAUTHENTICATED = {
  status: 401,
  body: { retryable: false, details: { code: 'authentication_required' } },
};
const PERMISSION_DENIED = { status: 403, body: { retryable: false, details: { code: 'permission_denied' } } };
const NOT_ACCEPTED = {
  status: 403,
  body: { retryable: false, details: { code: 'credential_not_accepted' } },
};
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const suffix = () => randomUUID().slice(0, 8);
const login = (email: string, password: string) => t.api.post(SESSIONS, { body: { email, password } });
const account = (token: string, api: Api = t.api) => api.get(ACCOUNT, { key: token });
const recallWith = (key: string, api: Api = t.api) => api.recall(key, recallBody(uniqueNamespace(), 'x'));

/** A new user of the signed-in owner's (or admin's) tenant, with a password they can log in with. */
async function addUser(token: string, role: Role) {
  const email = `${role}-${suffix()}@example.test`;
  const password = `pw-${randomUUID()}`;
  const res = await t.api.post(USERS, { key: token, body: { email, password, role } });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, email, password };
}

// A session token is a JWT (HS256). Tests that forge, alter or expire one build it by hand, with the
// key the gateway derives from its GATEWAY_SECRET_KEY, so nothing here leans on the product's signer.
const encodePart = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decodePart = (part: string | undefined) =>
  JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
const nowSeconds = () => Math.floor(Date.now() / 1000);

function signToken(
  key: Uint8Array,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' },
): string {
  const signingInput = `${encodePart(header)}.${encodePart(claims)}`;
  return `${signingInput}.${createHmac('sha256', key).update(signingInput).digest('base64url')}`;
}

const sessionSigningKey = () => deriveGatewaySecrets(t.stack.secretKey).sessionSigningKey;
const sessionClaims = (sub: string, sid: string, exp: number) => ({
  iss: 'tm-gateway',
  aud: 'tm-session',
  sub,
  sid,
  iat: nowSeconds() - 60,
  exp,
});

/** Replace one character well inside a token part (the last one of a part may carry only padding bits). */
function flipCharacter(part: string, at = 5): string {
  const c = part[at];
  return `${part.slice(0, at)}${c === 'A' ? 'B' : 'A'}${part.slice(at + 1)}`;
}

describe('POST /api/v1/control/sessions', () => {
  it('when the email and password are right, then 201 with a Bearer token, its expiry, the owner and the tenant', async () => {
    const tenant = await createTenant();

    const res = await login(tenant.owner.email, tenant.owner.password);

    expect(res).toMatchObject({
      status: 201,
      body: {
        token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
        token_type: 'Bearer',
        expires_at: expect.stringMatching(ISO_TIMESTAMP),
        user: {
          id: tenant.user_id,
          email: tenant.owner.email,
          role: 'owner',
          status: 'active',
          created_at: expect.stringMatching(ISO_TIMESTAMP),
        },
        tenant: { id: tenant.tenant_id, name: expect.stringMatching(/^test-/) },
      },
    });
    expect(new Date(res.body.expires_at).getTime()).toBeGreaterThan(Date.now());
    expect(decodePart(res.body.token.split('.')[1])).toMatchObject({
      sub: tenant.user_id,
      exp: Math.floor(new Date(res.body.expires_at).getTime() / 1000),
    });
    const signedIn = await account(res.body.token);
    expect(signedIn).toMatchObject({ status: 200, body: { user: { id: tenant.user_id } } });
  });

  it('when the email comes in upper case, then 201 for the same user', async () => {
    const tenant = await createTenant();

    const res = await login(tenant.owner.email.toUpperCase(), tenant.owner.password);

    expect(res).toMatchObject({
      status: 201,
      body: { user: { id: tenant.user_id, email: tenant.owner.email }, tenant: { id: tenant.tenant_id } },
    });
    expect((await account(res.body.token)).status).toBe(200);
  });

  it('when the password is wrong or the email unknown, then 401 with the same message and no token', async () => {
    const tenant = await createTenant();

    const wrongPassword = await login(tenant.owner.email, `${tenant.owner.password}-wrong`);
    const unknownEmail = await login(`nobody-${suffix()}@example.test`, tenant.owner.password);

    for (const res of [wrongPassword, unknownEmail]) {
      expect(res).toMatchObject(UNAUTHENTICATED);
      expect(res.body).not.toHaveProperty('token');
    }
    expect(wrongPassword.body.error).toBe(unknownEmail.body.error);
    expect(wrongPassword.body.error).toMatch(/email or password/i);
  });

  it('when the body is malformed JSON, then 400 malformed_json', async () => {
    const res = await t.api.post(SESSIONS, { raw: { data: '{"email":', contentType: 'application/json' } });

    expect(res).toMatchObject({
      status: 400,
      body: { retryable: false, details: { code: 'malformed_json' } },
    });
    expect(res.body).not.toHaveProperty('token');
  });

  it('when the password is missing, then 400 naming the password field', async () => {
    const tenant = await createTenant();

    const res = await t.api.post(SESSIONS, { body: { email: tenant.owner.email } });

    expect(res).toMatchObject({
      status: 400,
      body: {
        retryable: false,
        details: { code: 'validation_failed', fields: [{ path: 'password', message: expect.any(String) }] },
      },
    });
  });

  it('when the body has an unknown field, then 400 naming it and no session is opened', async () => {
    const tenant = await createTenant();

    const res = await t.api.post(SESSIONS, {
      body: { email: tenant.owner.email, password: tenant.owner.password, remember_me: true },
    });

    expect(res).toMatchObject({
      status: 400,
      body: {
        retryable: false,
        details: {
          code: 'validation_failed',
          fields: [{ path: 'remember_me', message: 'is not a known field' }],
        },
      },
    });
    expect(res.body).not.toHaveProperty('token');
  });

  describe('login throttling', () => {
    it(`when ${LOGIN_ATTEMPTS} logins for one email have failed, then the next is 429 with Retry-After, even with the right password`, async () => {
      const tenant = await createTenant();
      const failures = [];
      for (let i = 0; i < LOGIN_ATTEMPTS; i++) {
        failures.push(await login(tenant.owner.email, `wrong-${i}`));
      }

      const res = await login(tenant.owner.email, tenant.owner.password);
      const otherCase = await login(tenant.owner.email.toUpperCase(), tenant.owner.password);

      expect(failures.map((r) => r.status)).toEqual(Array(LOGIN_ATTEMPTS).fill(401));
      for (const refused of [res, otherCase]) {
        expect(refused).toMatchObject({
          status: 429,
          headers: { 'retry-after': expect.stringMatching(/^[1-9]\d*$/) },
          body: {
            error: expect.any(String),
            retryable: true,
            request_id: expect.any(String),
            details: { code: 'rate_limited', request_id: expect.any(String) },
          },
        });
        expect(refused.body).not.toHaveProperty('token');
      }
    });

    it('when failed logins for one email arrive all at once, then only the allowed number is checked and the rest get 429', async () => {
      const tenant = await createTenant();

      const results = await Promise.all(
        Array.from({ length: 3 * LOGIN_ATTEMPTS }, (_, i) => login(tenant.owner.email, `wrong-${i}`)),
      );
      const next = await login(tenant.owner.email, tenant.owner.password);

      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 401)).toHaveLength(LOGIN_ATTEMPTS);
      expect(statuses.filter((s) => s === 429)).toHaveLength(2 * LOGIN_ATTEMPTS);
      expect(next.status).toBe(429);
    });

    it('when one email is throttled, then another email still logs in', async () => {
      const throttled = await createTenant();
      const other = await createTenant();
      for (let i = 0; i < LOGIN_ATTEMPTS; i++) await login(throttled.owner.email, `wrong-${i}`);

      const refused = await login(throttled.owner.email, throttled.owner.password);
      const res = await login(other.owner.email, other.owner.password);

      expect(refused.status).toBe(429);
      expect(res).toMatchObject({ status: 201, body: { user: { id: other.user_id } } });
    });
  });
});

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
    for (const res of [withRevoked, withUnknown, withGarbage]) expect(res).toMatchObject(UNAUTHENTICATED);
  });

  it('when called without a credential, then 401', async () => {
    const res = await t.api.get(ACCOUNT);

    expect(res).toMatchObject(UNAUTHENTICATED);
  });
});

describe('DELETE /api/v1/control/sessions/current', () => {
  it('when a user logs out, then 204 and that token gets 401 while their other session still works', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const otherToken = await t.api.login(tenant.owner.email, tenant.owner.password);
    const before = await account(token);

    const res = await t.api.delete(CURRENT_SESSION, { key: token });

    expect(before.status).toBe(200);
    expect(res.status).toBe(204);
    expect(await account(token)).toMatchObject(UNAUTHENTICATED);
    expect(await t.api.delete(CURRENT_SESSION, { key: token })).toMatchObject(UNAUTHENTICATED);
    expect((await account(otherToken)).status).toBe(200);
  });
});

describe('Session tokens', () => {
  it('when a token is signed by hand with the gateway key for a live session, then it is accepted (the forgeries below differ only in what they change)', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const { sub, sid } = decodePart(token.split('.')[1]);

    const res = await account(
      signToken(sessionSigningKey(), sessionClaims(String(sub), String(sid), nowSeconds() + 600)),
    );

    expect(res).toMatchObject({ status: 200, body: { user: { id: tenant.user_id } } });
  });

  it('when a character of the signature is changed, then 401', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const [header, payload, signature] = token.split('.');

    const res = await account(`${header}.${payload}.${flipCharacter(signature ?? '')}`);

    expect(res).toMatchObject(UNAUTHENTICATED);
    expect((await account(token)).status).toBe(200);
  });

  it('when the payload is changed and the signature kept, then 401', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const otherToken = await t.api.login(other.owner.email, other.owner.password);
    const [header, payload, signature] = token.split('.');
    const claims = decodePart(payload);

    const longer = await account(
      `${header}.${encodePart({ ...claims, exp: Number(claims.exp) + 86_400 })}.${signature}`,
    );
    // Another tenant's owner and live session, under this token's signature.
    const otherClaims = decodePart(otherToken.split('.')[1]);
    const swapped = await account(
      `${header}.${encodePart({ ...claims, sub: otherClaims.sub, sid: otherClaims.sid })}.${signature}`,
    );

    expect(longer).toMatchObject(UNAUTHENTICATED);
    expect(swapped).toMatchObject(UNAUTHENTICATED);
  });

  it('when a token for a live session is signed with another key or with no algorithm, then 401', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const { sub, sid } = decodePart(token.split('.')[1]);
    const claims = sessionClaims(String(sub), String(sid), nowSeconds() + 600);

    const otherKey = await account(signToken(randomBytes(32), claims));
    const unsigned = await account(`${encodePart({ alg: 'none', typ: 'JWT' })}.${encodePart(claims)}.`);

    expect(otherKey).toMatchObject(UNAUTHENTICATED);
    expect(unsigned).toMatchObject(UNAUTHENTICATED);
  });

  it('when a well-signed token names a session that does not exist, then 401', async () => {
    const tenant = await createTenant();

    const res = await account(
      signToken(sessionSigningKey(), sessionClaims(tenant.user_id, randomUUID(), nowSeconds() + 600)),
    );

    expect(res).toMatchObject(UNAUTHENTICATED);
  });

  it('when a well-signed token has expired, then 401, even for a live session', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const { sid } = decodePart(token.split('.')[1]);
    const past = nowSeconds() - 60;

    const unknownSession = await account(
      signToken(sessionSigningKey(), sessionClaims(tenant.user_id, randomUUID(), past)),
    );
    const liveSession = await account(
      signToken(sessionSigningKey(), sessionClaims(tenant.user_id, String(sid), past)),
    );

    expect(unknownSession).toMatchObject(UNAUTHENTICATED);
    expect(liveSession).toMatchObject(UNAUTHENTICATED);
    expect((await account(token)).status).toBe(200);
  });
});

describe('Session tokens on the data plane', () => {
  const routes: Array<[string, (key: string) => ReturnType<Api['get']>]> = [
    [
      'POST /api/v1/memory/write',
      (key) =>
        t.api.post('/api/v1/memory/write', {
          key,
          headers: { 'Idempotency-Key': uniqueKey() },
          body: writeBody(uniqueNamespace(), 'x'),
        }),
    ],
    [
      'POST /api/v1/memory/recall',
      (key) => t.api.post('/api/v1/memory/recall', { key, body: recallBody(uniqueNamespace(), 'x') }),
    ],
    [
      'DELETE /api/v1/memory',
      (key) => t.api.delete('/api/v1/memory', { key, query: { namespace: uniqueNamespace() } }),
    ],
  ];

  it.each(routes)(
    'when %s is called with a valid session token, then 403 credential_not_accepted',
    async (_route, send) => {
      const tenant = await createTenant();
      const token = await t.api.login(tenant.owner.email, tenant.owner.password);

      const res = await send(token);

      expect(res).toMatchObject(NOT_ACCEPTED);
      expect(res.body.error).toMatch(/API key/);
    },
  );

  it.each(routes)('when %s is called with an invalid session token, then 401', async (_route, send) => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const [header, payload, signature] = token.split('.');

    const res = await send(`${header}.${payload}.${flipCharacter(signature ?? '')}`);

    expect(res).toMatchObject(UNAUTHENTICATED);
  });
});

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
        ...created.map((res) => expect.objectContaining(res.body)),
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

describe('POST /api/v1/control/api-keys/{id}/revoke', () => {
  it("when a developer creates a key, then they can revoke their own but not the owner's", async () => {
    const tenant = await createTenant();
    const ownerToken = await t.api.login(tenant.owner.email, tenant.owner.password);
    const developer = await addUser(ownerToken, 'developer');
    const token = await t.api.login(developer.email, developer.password);

    const created = await t.api.post(API_KEYS, { key: token, body: { name: 'dev key' } });
    const worksBefore = await recallWith(created.body.key);
    const revokeOwners = await t.api.post(`${API_KEYS}/${tenant.key_id}/revoke`, { key: token });
    const revokeOwn = await t.api.post(`${API_KEYS}/${created.body.id}/revoke`, { key: token });

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
    expect(await t.api.get(`${API_KEYS}/${tenant.key_id}`, { key: ownerToken })).toMatchObject({
      status: 200,
      body: { status: 'active', revoked_at: null },
    });
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

    expect(results.map((r) => r.status).sort()).toEqual([200, 403]);
    expect(results.find((r) => r.status === 403)).toMatchObject(PERMISSION_DENIED);
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
