import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { deriveGatewaySecrets } from '@tm/gateway';
import { describe, expect, it } from 'vitest';
import type { Api } from '../support/api.js';
import {
  CURRENT_SESSION,
  controlSteps,
  ISO_TIMESTAMP,
  NOT_ACCEPTED,
  SESSIONS,
  suffix,
  UNAUTHENTICATED,
} from '../support/control.js';
import { SESSION_NOT_ACCEPTED } from '../support/credential-refusals.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';

// Low enough to reach in a test; every test uses its own addresses, so no other test comes near it.
const LOGIN_ATTEMPTS = 5;
// The gateway trusts a proxy on loopback, so a test can send a burst from several client addresses
// (X-Forwarded-For, TEST-NET-2, a header value only): one address holds at most a few password hashes.
// The burst's hashes may wait for a slot as long as a loaded machine needs: its test is about the
// per-email limit, not the hashing queue's 503 (password-hashing-bound.test.ts).
const t = useStack({
  gatewayEnv: {
    LOGIN_ATTEMPTS_PER_15_MINUTES: String(LOGIN_ATTEMPTS),
    GATEWAY_TRUST_PROXY: 'loopback',
    PASSWORD_HASH_MAX_WAIT_MS: '30000',
  },
});
const { login, account } = controlSteps(t);
/** A session token that came and was refused: never told to send a credential, whatever the reason. */
const SESSION_REFUSED = {
  ...UNAUTHENTICATED,
  body: { ...UNAUTHENTICATED.body, error: SESSION_NOT_ACCEPTED },
};
let lastOctet = 0;
const loginFromNewAddress = (email: string, password: string) =>
  t.api.post(SESSIONS, {
    body: { email, password },
    headers: { 'X-Forwarded-For': `198.51.100.${++lastOctet}` },
  });

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

    it('when failed logins for one email arrive all at once from many addresses, then only the allowed number is checked and the rest get 429', async () => {
      const tenant = await createTenant();

      const results = await Promise.all(
        Array.from({ length: 3 * LOGIN_ATTEMPTS }, (_, i) =>
          loginFromNewAddress(tenant.owner.email, `wrong-${i}`),
        ),
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

describe('DELETE /api/v1/control/sessions/current', () => {
  it('when a user logs out, then 204 and that token gets 401 while their other session still works', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const otherToken = await t.api.login(tenant.owner.email, tenant.owner.password);
    const before = await account(token);

    const res = await t.api.delete(CURRENT_SESSION, { key: token });

    expect(before.status).toBe(200);
    expect(res.status).toBe(204);
    expect(await account(token)).toMatchObject(SESSION_REFUSED);
    expect(await t.api.delete(CURRENT_SESSION, { key: token })).toMatchObject(SESSION_REFUSED);
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

    expect(res).toMatchObject(SESSION_REFUSED);
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

    expect(longer).toMatchObject(SESSION_REFUSED);
    expect(swapped).toMatchObject(SESSION_REFUSED);
  });

  it('when a token for a live session is signed with another key or with no algorithm, then 401', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const { sub, sid } = decodePart(token.split('.')[1]);
    const claims = sessionClaims(String(sub), String(sid), nowSeconds() + 600);

    const otherKey = await account(signToken(randomBytes(32), claims));
    const unsigned = await account(`${encodePart({ alg: 'none', typ: 'JWT' })}.${encodePart(claims)}.`);

    expect(otherKey).toMatchObject(SESSION_REFUSED);
    expect(unsigned).toMatchObject(SESSION_REFUSED);
  });

  it('when a well-signed token names a session that does not exist, then 401', async () => {
    const tenant = await createTenant();

    const res = await account(
      signToken(sessionSigningKey(), sessionClaims(tenant.user_id, randomUUID(), nowSeconds() + 600)),
    );

    expect(res).toMatchObject(SESSION_REFUSED);
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

    expect(unknownSession).toMatchObject(SESSION_REFUSED);
    expect(liveSession).toMatchObject(SESSION_REFUSED);
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

    expect(res).toMatchObject(SESSION_REFUSED);
  });
});
