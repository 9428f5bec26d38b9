import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
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

const CONSENT = '/api/v1/control/consent';

describe('GET /api/v1/control/consent', () => {
  it('when a bootstrap tenant asks, then consent is granted', async () => {
    const tenant = await tenantWithSession();

    const res = await t.api.get(CONSENT, { key: tenant.session });

    expect(res).toMatchObject({
      status: 200,
      body: { purpose: 'private_memory', state: 'granted', updated_at: timestamp },
    });
  });

  it('when the tenant was created without consent, then it is missing', async () => {
    const tenant = await tenantWithSession({ consent: false });

    const res = await t.api.get(CONSENT, { key: tenant.session });

    expect(res).toMatchObject({
      status: 200,
      body: { purpose: 'private_memory', state: 'missing', updated_at: null },
    });
  });
});

describe('POST /api/v1/control/consent/revoke and /grant', () => {
  it('when consent is revoked, then writes are not retained while earlier data is still recalled; when granted again, then writes are retained', async () => {
    const tenant = await tenantWithSession();
    const namespace = uniqueNamespace();
    const earlier = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'Alice prefers green tea', { event_id: 'before' }),
      uniqueKey(),
    );

    const revoked = await t.api.post(`${CONSENT}/revoke`, { key: tenant.session });
    const consentAfterRevoke = await t.api.get(CONSENT, { key: tenant.session });
    const whileRevoked = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'Bob hides purple umbrellas', { event_id: 'during' }),
      uniqueKey(),
    );
    const recallWhileRevoked = await t.api.recall(
      tenant.api_key,
      recallBody(namespace, 'green tea purple umbrellas'),
    );
    const granted = await t.api.post(`${CONSENT}/grant`, { key: tenant.session });
    const afterGrant = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'Carol keeps orange notebooks', { event_id: 'after' }),
      uniqueKey(),
    );
    const recallAfterGrant = await t.api.recall(
      tenant.api_key,
      recallBody(namespace, 'green tea purple umbrellas orange notebooks'),
    );

    expect(earlier).toMatchObject({ status: 200, body: { state: 'retained' } });
    expect(revoked).toMatchObject({
      status: 200,
      body: { purpose: 'private_memory', state: 'revoked', updated_at: timestamp },
    });
    expect(consentAfterRevoke.body).toEqual(revoked.body);
    expect(whileRevoked).toMatchObject({
      status: 200,
      body: {
        state: 'not_retained',
        memory_id: null,
        decision: { value: 'not_retained', memorized: false },
        usage: { billing_state: 'no_data', operation_units: 0 },
      },
    });
    expect(recallWhileRevoked.status).toBe(200);
    expect(texts(recallWhileRevoked)).toEqual(['Alice prefers green tea']);
    expect(granted).toMatchObject({
      status: 200,
      body: { purpose: 'private_memory', state: 'granted', updated_at: timestamp },
    });
    expect(afterGrant).toMatchObject({
      status: 200,
      body: { state: 'retained', decision: { value: 'memorized', memorized: true } },
    });
    expect(texts(recallAfterGrant).sort()).toEqual([
      'Alice prefers green tea',
      'Carol keeps orange notebooks',
    ]);
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(2);
  });

  it('when consent changes, then the history lists each change newest first with the owner as actor and the request id', async () => {
    const tenant = await tenantWithSession();
    const revokeRequest = `revoke-${randomUUID()}`;
    const grantRequest = `grant-${randomUUID()}`;

    const revoked = await t.api.post(`${CONSENT}/revoke`, {
      key: tenant.session,
      headers: { 'X-Request-Id': revokeRequest },
    });
    const granted = await t.api.post(`${CONSENT}/grant`, {
      key: tenant.session,
      headers: { 'X-Request-Id': grantRequest },
    });
    const history = await t.api.get(`${CONSENT}/events`, { key: tenant.session });

    expect(revoked.headers['x-request-id']).toBe(revokeRequest);
    expect(granted.headers['x-request-id']).toBe(grantRequest);
    expect(history).toMatchObject({ status: 200, body: { purpose: 'private_memory' } });
    expect(history.body.data).toEqual([
      { state: 'granted', actor_user_id: tenant.user_id, request_id: grantRequest, occurred_at: timestamp },
      { state: 'revoked', actor_user_id: tenant.user_id, request_id: revokeRequest, occurred_at: timestamp },
      // The grant made when the tenant was bootstrapped, by no signed-in user.
      { state: 'granted', actor_user_id: null, request_id: null, occurred_at: timestamp },
    ]);
    const times = history.body.data.map((e: { occurred_at: string }) => Date.parse(e.occurred_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it("when one tenant's owner revokes, then another tenant's consent, history and writes are untouched", async () => {
    const tenant = await tenantWithSession();
    const other = await tenantWithSession();

    await t.api.post(`${CONSENT}/revoke`, { key: tenant.session });
    const otherConsent = await t.api.get(CONSENT, { key: other.session });
    const otherHistory = await t.api.get(`${CONSENT}/events`, { key: other.session });
    const otherWrite = await t.api.write(
      other.api_key,
      writeBody(uniqueNamespace(), 'still kept'),
      uniqueKey(),
    );

    expect(otherConsent.body).toMatchObject({ state: 'granted' });
    expect(otherHistory.body.data).toHaveLength(1);
    expect(otherWrite).toMatchObject({ status: 200, body: { state: 'retained' } });
  });
});
