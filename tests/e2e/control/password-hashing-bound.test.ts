import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SESSIONS, suffix } from '../support/control.js';
import { createTenant } from '../support/factories.js';
import { useStack } from '../support/stack.js';

// scrypt runs on libuv's small thread pool, shared with file reads and DNS. One hash at a time and
// two waiting, so a burst overflows at once; one address holds one running and one waiting. The
// gateway trusts a proxy on loopback, so each request names its client address in X-Forwarded-For
// (TEST-NET-2, a header value only); the failed-attempt limit per address is set out of the way, and
// an account allows exactly one burst of failures.
const BURST = 24;
const t = useStack({
  gatewayEnv: {
    GATEWAY_TRUST_PROXY: 'loopback',
    PASSWORD_HASH_CONCURRENCY: '1',
    PASSWORD_HASH_QUEUE: '2',
    PASSWORD_HASH_PER_ADDRESS: '2',
    LOGIN_ATTEMPTS_PER_15_MINUTES: String(BURST),
    LOGIN_ATTEMPTS_PER_ADDRESS_PER_15_MINUTES: '1000',
  },
});

let lastOctet = 0;
const newAddress = () => `198.51.100.${++lastOctet}`;

const login = (email: string, password: string, from = newAddress()) =>
  t.api.post(SESSIONS, { body: { email, password }, headers: { 'X-Forwarded-For': from } });

describe('POST /api/v1/control/sessions: password hashing is bounded', () => {
  it(`when ${BURST} logins arrive at once, each from its own address, then those beyond the hashing slots and their queue get a retryable 503 with Retry-After instead of all being hashed`, async () => {
    const results = await Promise.all(
      Array.from({ length: BURST }, () => login(`nobody-${suffix()}@example.test`, `wrong-${randomUUID()}`)),
    );

    const statuses = results.map((r) => r.status);
    const refused = results.filter((r) => r.status === 503);
    expect(statuses.filter((s) => s !== 401 && s !== 503)).toEqual([]);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(3); // the slot and the queue
    expect(refused.length).toBeGreaterThan(0);
    for (const res of refused) {
      expect(res).toMatchObject({
        status: 503,
        headers: { 'retry-after': '1' },
        body: {
          error: 'Too many passwords are being checked right now; retry in a moment',
          retryable: true,
          request_id: expect.any(String),
          details: { code: 'service_unavailable', request_id: expect.any(String) },
        },
      });
      expect(res.body).not.toHaveProperty('token');
    }
  });

  it('when a refused login is retried after the burst, then it is checked: the refusals were not counted as failed attempts', async () => {
    const tenant = await createTenant();
    // The owner's email, BURST times (each from its own address): exactly its allowance, so had the
    // refused ones counted, the retry would be the allowance's next attempt and a 429.
    const burst = await Promise.all(
      Array.from({ length: BURST }, () => login(tenant.owner.email, `wrong-${randomUUID()}`)),
    );

    const retried = await login(tenant.owner.email, tenant.owner.password);

    const statuses = burst.map((r) => r.status);
    expect(statuses.filter((s) => s !== 401 && s !== 503)).toEqual([]);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(retried).toMatchObject({ status: 201, body: { user: { id: tenant.user_id } } });
  });

  it('when one address floods the logins, then its excess gets 429 with Retry-After while the owner logs in from another address', async () => {
    const tenant = await createTenant();
    const attacker = newAddress();
    const flood = Array.from({ length: 30 }, () =>
      login(`nobody-${suffix()}@example.test`, `wrong-${randomUUID()}`, attacker),
    );
    // The owner's login goes out once the flood is in: its first refusal has come back, long before
    // its hashes (about 100 ms each, one at a time) are done.
    await Promise.race(flood);

    const owner = await login(tenant.owner.email, tenant.owner.password, newAddress());
    const flooded = await Promise.all(flood);

    expect(owner).toMatchObject({ status: 201, body: { user: { id: tenant.user_id } } });
    const statuses = flooded.map((r) => r.status);
    // Its share is checked (401); on a machine so loaded that a hash outlasts the 2 s wait, its
    // waiting one is refused by the global bound (503) instead.
    expect(statuses.filter((s) => s !== 401 && s !== 429 && s !== 503)).toEqual([]);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(1);
    const refused = flooded.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const res of refused) {
      expect(res).toMatchObject({
        status: 429,
        headers: { 'retry-after': '1' },
        body: {
          error: 'Too many passwords are being checked for this address right now; retry in a moment',
          retryable: true,
          request_id: expect.any(String),
          details: { code: 'rate_limited', request_id: expect.any(String) },
        },
      });
      expect(res.body).not.toHaveProperty('token');
    }
  });
});
