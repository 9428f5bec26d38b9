import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { asListed } from '../support/contract.js';
import { controlSteps, TIMESTAMP as timestamp } from '../support/control.js';
import { useStack } from '../support/stack.js';

const t = useStack();
const { tenantWithSession } = controlSteps(t);

describe('POST /api/v1/control/operator-tokens', () => {
  const TOKENS = '/api/v1/control/operator-tokens';

  it('when an owner issues a token, then 201 with a tmo_ token for about 24 hours, listed without the token', async () => {
    const tenant = await tenantWithSession();

    const res = await t.api.post(TOKENS, { key: tenant.session, body: { name: 'smoke test' } });
    const list = await t.api.get(TOKENS, { key: tenant.session });

    expect(res).toMatchObject({
      status: 201,
      body: {
        id: expect.any(String),
        name: 'smoke test',
        prefix: expect.stringMatching(/^tmo_/),
        status: 'active',
        created_at: timestamp,
        expires_at: timestamp,
        revoked_at: null,
        token: expect.stringMatching(/^tmo_[A-Za-z0-9]{8}_[A-Za-z0-9]{40}$/),
      },
    });
    const { token, ...view } = res.body;
    expect(token.startsWith(`${view.prefix}_`)).toBe(true);
    const lifetimeHours = (Date.parse(view.expires_at) - Date.parse(view.created_at)) / 3_600_000;
    expect(lifetimeHours).toBeGreaterThan(23.9);
    expect(lifetimeHours).toBeLessThan(24.1);
    expect(list).toMatchObject({ status: 200, body: { data: [asListed(view)] } });
    expect(list.body.data[0]).not.toHaveProperty('token');
    expect(JSON.stringify(list.body)).not.toContain(token);
  });

  it('when a developer issues, lists or revokes tokens, then 403 and nothing changes', async () => {
    const tenant = await tenantWithSession();
    const issued = await t.api.post(TOKENS, { key: tenant.session, body: { name: 'owner token' } });
    const developer = {
      email: `dev-${randomUUID().slice(0, 8)}@example.test`,
      password: `pw-${randomUUID()}`,
    };
    const added = await t.api.post('/api/v1/control/users', {
      key: tenant.session,
      body: { ...developer, role: 'developer' },
    });
    const devSession = await t.api.login(developer.email, developer.password);

    const issue = await t.api.post(TOKENS, { key: devSession, body: { name: 'dev token' } });
    const list = await t.api.get(TOKENS, { key: devSession });
    const revoke = await t.api.post(`${TOKENS}/${issued.body.id}/revoke`, { key: devSession });

    expect(added).toMatchObject({ status: 201, body: { role: 'developer', status: 'active' } });
    for (const res of [issue, list, revoke]) {
      expect(res).toMatchObject({
        status: 403,
        body: { retryable: false, details: { code: 'permission_denied' } },
      });
    }
    const ownerList = await t.api.get(TOKENS, { key: tenant.session });
    expect(ownerList.body.data).toMatchObject([
      { id: issued.body.id, name: 'owner token', status: 'active' },
    ]);
  });

  it('when a token is revoked, then it is listed as revoked, and revoking again answers the same', async () => {
    const tenant = await tenantWithSession();
    const issued = await t.api.post(TOKENS, { key: tenant.session, body: { name: 'short lived' } });

    const revoked = await t.api.post(`${TOKENS}/${issued.body.id}/revoke`, { key: tenant.session });
    const again = await t.api.post(`${TOKENS}/${issued.body.id}/revoke`, { key: tenant.session });

    const { token: _token, ...view } = issued.body;
    expect(revoked).toMatchObject({
      status: 200,
      body: { ...view, status: 'revoked', revoked_at: timestamp },
    });
    expect(again).toMatchObject({ status: 200, body: revoked.body });
    const list = await t.api.get(TOKENS, { key: tenant.session });
    expect(list.body.data).toEqual([asListed(revoked.body)]);
  });

  it("when another tenant's token is revoked, then 404 and it stays active", async () => {
    const tenant = await tenantWithSession();
    const other = await tenantWithSession();
    const issued = await t.api.post(TOKENS, { key: other.session, body: { name: 'theirs' } });

    const res = await t.api.post(`${TOKENS}/${issued.body.id}/revoke`, { key: tenant.session });

    expect(res).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
    const theirs = await t.api.get(TOKENS, { key: other.session });
    expect(theirs.body.data).toMatchObject([{ id: issued.body.id, status: 'active' }]);
  });
});
