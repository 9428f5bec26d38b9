import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Api } from '../support/api.js';
import { PASSWORD, SESSIONS, suffix } from '../support/control.js';
import { createTenant } from '../support/factories.js';
import { stackEnv, useSecondGateway, useStack } from '../support/stack.js';

// failed password checks are limited per client address too, not only per account. Low
// limits, so a test reaches them; the account limit is above the address limit, so every 429 below
// comes from the address.
const PER_ACCOUNT = 8;
const PER_ADDRESS = 5;
const t = useStack({
  gatewayEnv: {
    LOGIN_ATTEMPTS_PER_15_MINUTES: String(PER_ACCOUNT),
    LOGIN_ATTEMPTS_PER_ADDRESS_PER_15_MINUTES: String(PER_ADDRESS),
  },
});
// The same stack behind a proxy on loopback: the test's requests come from 127.0.0.1, so it believes
// their X-Forwarded-For. The first gateway trusts no proxy (the default).
const proxied = useSecondGateway(t, { GATEWAY_TRUST_PROXY: 'loopback' });

/** A client address of its own per call (TEST-NET-2), so each test counts from zero. */
let lastOctet = 0;
const newAddress = () => `198.51.100.${++lastOctet}`;

type Response = Awaited<ReturnType<Api['post']>>;

const loginFrom = (api: Api, address: string, email: string, password: string) =>
  api.post(SESSIONS, { body: { email, password }, headers: { 'X-Forwarded-For': address } });

const unknownEmail = () => `nobody-${suffix()}@example.test`;

/** `count` failed logins with a different unknown email each, one after another. */
async function failedLogins(api: Api, count: number, address: () => string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    statuses.push((await loginFrom(api, address(), unknownEmail(), `wrong-${randomUUID()}`)).status);
  }
  return statuses;
}

/**
 * A failed-login count as the shared store holds it (`password-from:<address>`, `password:email:<email>`):
 * what no API shows, and what a refusal repeated from an instance's memory must leave alone.
 */
async function storedCount(bucket: string): Promise<number> {
  const client = new pg.Client({ connectionString: stackEnv().gatewayDbUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ points: number }>(
      'SELECT points FROM rate_limit_counter WHERE key = $1',
      [bucket],
    );
    return rows[0]?.points ?? 0;
  } finally {
    await client.end();
  }
}

function expectAddressLimited(res: Response) {
  expect(res).toMatchObject({
    status: 429,
    headers: { 'retry-after': expect.stringMatching(/^[1-9]\d*$/) },
    body: {
      error: expect.stringMatching(/from this address; try again in \d+ (minutes|seconds?)$/),
      retryable: true,
      request_id: expect.any(String),
      details: { code: 'rate_limited', request_id: expect.any(String) },
    },
  });
  expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
  expect(res.body).not.toHaveProperty('token');
}

describe('failed logins per client address, behind a trusted proxy', () => {
  it(`when ${PER_ADDRESS} logins from one address have failed, each for another email, then its next is 429 with Retry-After, even with the right password, while another address logs in`, async () => {
    const tenant = await createTenant();
    const attacker = newAddress();

    const failures = await failedLogins(proxied.api, PER_ADDRESS, () => attacker);
    const refused = await loginFrom(proxied.api, attacker, tenant.owner.email, tenant.owner.password);
    const elsewhere = await loginFrom(proxied.api, newAddress(), tenant.owner.email, tenant.owner.password);

    expect(failures).toEqual(Array(PER_ADDRESS).fill(401));
    expectAddressLimited(refused);
    expect(elsewhere).toMatchObject({ status: 201, body: { user: { id: tenant.user_id } } });
  });

  it('when failed logins come from as many addresses as there are attempts, then no address is limited', async () => {
    const tenant = await createTenant();

    const failures = await failedLogins(proxied.api, 2 * PER_ADDRESS, newAddress);
    const res = await loginFrom(proxied.api, newAddress(), tenant.owner.email, tenant.owner.password);

    expect(failures).toEqual(Array(2 * PER_ADDRESS).fill(401));
    expect(res.status).toBe(201);
  });

  it('when an address logs in successfully between its failures, then only that attempt is given back, not its failures', async () => {
    const tenant = await createTenant();
    const address = newAddress();

    const before = await failedLogins(proxied.api, PER_ADDRESS - 1, () => address);
    const success = await loginFrom(proxied.api, address, tenant.owner.email, tenant.owner.password);
    const last = await failedLogins(proxied.api, 1, () => address);
    const refused = await loginFrom(proxied.api, address, tenant.owner.email, tenant.owner.password);

    expect(before).toEqual(Array(PER_ADDRESS - 1).fill(401));
    expect(success.status).toBe(201);
    expect(last).toEqual([401]);
    expectAddressLimited(refused);
  });

  it('when wrong current passwords and failed logins come from one address, then they count together, and the password is unchanged', async () => {
    const tenant = await createTenant();
    const address = newAddress();
    const session = await loginFrom(proxied.api, newAddress(), tenant.owner.email, tenant.owner.password);
    const change = (current: string) =>
      proxied.api.post(PASSWORD, {
        key: session.body.token,
        headers: { 'X-Forwarded-For': address },
        body: { current_password: current, new_password: `pw-${randomUUID()}` },
      });

    const logins = await failedLogins(proxied.api, PER_ADDRESS - 2, () => address);
    const wrong = [(await change('not-the-password-1')).status, (await change('not-the-password-2')).status];
    const refused = await change(tenant.owner.password);

    expect(logins).toEqual(Array(PER_ADDRESS - 2).fill(401));
    expect(wrong).toEqual([403, 403]);
    expectAddressLimited(refused);
    const stillOld = await loginFrom(proxied.api, newAddress(), tenant.owner.email, tenant.owner.password);
    expect(stillOld.status).toBe(201);
  });
});

// An instance repeats a refusal the store gave it without asking again; remembered here longer than
// any test takes (the default, 1 s, could lapse mid-test on a slow machine and let one attempt through).
describe("failed logins past the limit, refused from the instance's memory", () => {
  const remembering = useSecondGateway(t, {
    GATEWAY_TRUST_PROXY: 'loopback',
    RATE_LIMIT_REFUSAL_MEMORY_MS: '600000',
  });

  it('when an address goes on sending logins after its refusal, then each gets 429 with Retry-After without reaching the shared count, even with an unreadable body, while another address logs in', async () => {
    const tenant = await createTenant();
    const attacker = newAddress();
    const failures = await failedLogins(remembering.api, PER_ADDRESS, () => attacker);
    const refusal = await loginFrom(remembering.api, attacker, unknownEmail(), 'wrong');
    const countedAtRefusal = await storedCount(`password-from:${attacker}`);

    const flood = await Promise.all(
      Array.from({ length: 20 }, () =>
        loginFrom(remembering.api, attacker, unknownEmail(), `wrong-${randomUUID()}`),
      ),
    );
    const unreadable = await remembering.api.post(SESSIONS, {
      raw: { data: '{"email":', contentType: 'application/json' },
      headers: { 'X-Forwarded-For': attacker },
    });
    const owner = await loginFrom(remembering.api, attacker, tenant.owner.email, tenant.owner.password);
    const elsewhere = await loginFrom(
      remembering.api,
      newAddress(),
      tenant.owner.email,
      tenant.owner.password,
    );

    expect(failures).toEqual(Array(PER_ADDRESS).fill(401));
    for (const res of [refusal, ...flood, unreadable, owner]) expectAddressLimited(res);
    expect(countedAtRefusal).toBe(PER_ADDRESS + 1);
    expect(await storedCount(`password-from:${attacker}`)).toBe(countedAtRefusal);
    expect(elsewhere).toMatchObject({ status: 201, body: { user: { id: tenant.user_id } } });
  });

  it('when logins for a refused email go on from many addresses, then each gets 429 without reaching the shared count, while another email logs in', async () => {
    const target = await createTenant();
    const other = await createTenant();
    const failures = [];
    for (let i = 0; i < PER_ACCOUNT; i++) {
      failures.push(
        (await loginFrom(remembering.api, newAddress(), target.owner.email, `wrong-${i}`)).status,
      );
    }
    const refusal = await loginFrom(remembering.api, newAddress(), target.owner.email, target.owner.password);
    const countedAtRefusal = await storedCount(`password:email:${target.owner.email}`);

    const flood = await Promise.all(
      Array.from({ length: 20 }, () =>
        loginFrom(remembering.api, newAddress(), target.owner.email, `wrong-${randomUUID()}`),
      ),
    );
    const res = await loginFrom(remembering.api, newAddress(), other.owner.email, other.owner.password);

    expect(failures).toEqual(Array(PER_ACCOUNT).fill(401));
    for (const refused of [refusal, ...flood]) {
      expect(refused).toMatchObject({
        status: 429,
        headers: { 'retry-after': expect.stringMatching(/^[1-9]\d*$/) },
        body: {
          error: expect.stringMatching(/for this account; try again in \d+ (minutes|seconds?)$/),
          retryable: true,
          details: { code: 'rate_limited' },
        },
      });
    }
    expect(countedAtRefusal).toBe(PER_ACCOUNT + 1);
    expect(await storedCount(`password:email:${target.owner.email}`)).toBe(countedAtRefusal);
    expect(res).toMatchObject({ status: 201, body: { user: { id: other.user_id } } });
  });
});

// Last in the file: it uses up the test machine's own address (127.0.0.1) on the first gateway.
describe('failed logins per client address, with no trusted proxy', () => {
  it("when each failed login forges another X-Forwarded-For, then the header is ignored and the connection's address is limited", async () => {
    const tenant = await createTenant();

    const failures = await failedLogins(t.api, PER_ADDRESS, newAddress);
    const forged = await loginFrom(t.api, newAddress(), tenant.owner.email, tenant.owner.password);
    const plain = await t.api.post(SESSIONS, {
      body: { email: tenant.owner.email, password: tenant.owner.password },
    });

    expect(failures).toEqual(Array(PER_ADDRESS).fill(401));
    expectAddressLimited(forged);
    expectAddressLimited(plain);
  });
});
