import { revokeApiKey } from '@tm/gateway';
import { describe, expect, it } from 'vitest';
import type { Api } from '../support/api.js';
import { KEY_NOT_ACCEPTED, NO_CREDENTIAL, SESSION_NOT_ACCEPTED } from '../support/credential-refusals.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';

const t = useStack();

const UNKNOWN_KEY = 'tmk_AAAAAAAA_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

const revoke = (tenant: { tenant_id: string; key_id: string }) =>
  revokeApiKey({ tenantId: tenant.tenant_id, keyId: tenant.key_id }, { nc: t.stack.gateway.nc });

describe('API-key authentication on the data plane', () => {
  const routes: Array<[string, (api: Api, headers: Record<string, string>) => ReturnType<Api['get']>]> = [
    [
      'write',
      (a, headers) =>
        a.post('/api/v1/memory/write', {
          headers: { 'Idempotency-Key': uniqueKey(), ...headers },
          body: writeBody('ns', 'x'),
        }),
    ],
    ['recall', (a, headers) => a.post('/api/v1/memory/recall', { headers, body: recallBody('ns', 'x') })],
    ['delete', (a, headers) => a.delete('/api/v1/memory', { headers, query: { namespace: 'ns' } })],
  ];
  const badCredentials: Array<[string, Record<string, string>, string]> = [
    ['no credential', {}, NO_CREDENTIAL],
    ['another auth scheme', { Authorization: 'Basic dXNlcjpwYXNz' }, NO_CREDENTIAL],
    ['a Bearer without a token', { Authorization: 'Bearer ' }, NO_CREDENTIAL],
    ['an empty X-API-Key', { 'X-API-Key': '' }, NO_CREDENTIAL],
    ['an unknown key', { Authorization: `Bearer ${UNKNOWN_KEY}` }, KEY_NOT_ACCEPTED],
    ['a malformed key', { Authorization: 'Bearer tmk_short' }, KEY_NOT_ACCEPTED],
    ['an unknown key as X-API-Key', { 'X-API-Key': UNKNOWN_KEY }, KEY_NOT_ACCEPTED],
    [
      'a bearer token that is no key nor session',
      { Authorization: 'Bearer not-a-key' },
      SESSION_NOT_ACCEPTED,
    ],
  ];

  for (const [route, send] of routes) {
    it.each(badCredentials)(
      `when ${route} is called with %s, then 401 authentication_required saying so`,
      async (_label, headers, message) => {
        const res = await send(t.api, headers);
        expect(res).toMatchObject({
          status: 401,
          body: { error: message, retryable: false, details: { code: 'authentication_required' } },
        });
        expect(JSON.stringify(res.body)).not.toMatch(/tenant|stack|at .*\.ts/i);
      },
    );
  }

  it('when a key is refused for any reason, then the message is the same: it never tells which', async () => {
    const revoked = await createTenant();
    await revoke(revoked);
    const presented: Array<Record<string, string>> = [
      { Authorization: `Bearer ${UNKNOWN_KEY}` },
      { Authorization: 'Bearer tmk_short' },
      { Authorization: `Bearer ${revoked.api_key}` },
      { 'X-API-Key': UNKNOWN_KEY },
      { 'X-API-Key': revoked.api_key },
    ];

    const answers = await Promise.all(
      presented.map((headers) =>
        t.api.post('/api/v1/memory/recall', { headers, body: recallBody(uniqueNamespace(), 'x') }),
      ),
    );

    expect(answers.map((res) => [res.status, res.body.details.code])).toEqual(
      presented.map(() => [401, 'authentication_required']),
    );
    expect(new Set(answers.map((res) => res.body.error))).toEqual(new Set([KEY_NOT_ACCEPTED]));
  });

  it('when the key comes as X-API-Key, then it authenticates like Bearer', async () => {
    const tenant = await createTenant();
    const res = await t.api.post('/api/v1/memory/recall', {
      headers: { 'X-API-Key': tenant.api_key },
      body: recallBody(uniqueNamespace(), 'anything'),
    });
    expect(res.status).toBe(200);
  });

  it('when a key is revoked, then its very next request is 401', async () => {
    const tenant = await createTenant();
    const before = await t.api.recall(tenant.api_key, recallBody(uniqueNamespace(), 'x'));

    await revoke(tenant);
    const after = await t.api.recall(tenant.api_key, recallBody(uniqueNamespace(), 'x'));

    expect(before.status).toBe(200);
    expect(after).toMatchObject({
      status: 401,
      body: { error: KEY_NOT_ACCEPTED, details: { code: 'authentication_required' } },
    });
  });

  it('when the key has no storage connection, then 403 and nothing is written', async () => {
    const tenant = await createTenant({ storage: false });
    const res = await t.api.write(tenant.api_key, writeBody(uniqueNamespace(), 'no storage'), uniqueKey());
    expect(res).toMatchObject({
      status: 403,
      body: { retryable: false, details: { code: 'storage_not_attached' } },
    });
  });

  it('when a body names a tenant, then the credential still decides the scope', async () => {
    const owner = await createTenant();
    const other = await createTenant();
    const namespace = uniqueNamespace();
    await t.api.write(owner.api_key, writeBody(namespace, 'owner only text'), uniqueKey());

    const res = await t.api.recall(other.api_key, {
      ...recallBody(namespace, 'owner only text'),
      tenant_id: owner.tenant_id,
    });

    expect(res).toMatchObject({ status: 400, body: { details: { fields: [{ path: 'tenant_id' }] } } });
  });
});
