import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CHARGES, publishPastUsage } from '../support/billing.js';
import { asListed } from '../support/contract.js';
import { controlSteps } from '../support/control.js';
import { eventually } from '../support/eventually.js';
import { useStack } from '../support/stack.js';

const t = useStack();
const { tenantWithSession } = controlSteps(t);

const INVOICES = '/api/v1/control/billing/invoices';

/** Every charge of the tenant, once billing has consumed `count` of them (bounded wait). */
async function chargesOnceRecorded(session: string, count: number) {
  const res = await eventually(async () => {
    const res = await t.api.get(CHARGES, { key: session, query: { limit: '200' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.paging.total, 'charges recorded').toBeGreaterThanOrEqual(count);
    return res;
  });
  return res.body.data as Array<{ id: string; state: string; occurred_at: string; history: unknown[] }>;
}

describe('POST /api/v1/control/billing/invoices', () => {
  it("when a closed month is invoiced, then its recorded charges become invoiced under one invoice and other months' stay", async () => {
    const tenant = await tenantWithSession();
    await publishPastUsage(t.stack.env.natsUrl, tenant, [
      '2026-09-03T10:00:00Z',
      '2026-09-30T23:59:59Z',
      '2026-09-15T12:00:00Z',
    ]);
    await publishPastUsage(t.stack.env.natsUrl, tenant, ['2026-10-01T00:00:00Z'], 'memory.recall');
    const before = await chargesOnceRecorded(tenant.session, 4);
    const september = before.filter((c) => c.occurred_at.startsWith('2026-09'));
    const voided = september[0] as { id: string };
    await t.api.post(`${CHARGES}/${voided.id}/void`, { key: tenant.session, body: { reason: 'test' } });

    const res = await t.api.post(INVOICES, { key: tenant.session, body: { period: '2026-09' } });
    const after = await chargesOnceRecorded(tenant.session, 4);

    expect(res).toMatchObject({
      status: 200,
      body: {
        period: '2026-09',
        period_start: '2026-09-01T00:00:00.000Z',
        period_end: '2026-10-01T00:00:00.000Z',
        charges: 2,
        total_usd: 0.0002,
        created_by: tenant.user_id,
      },
    });
    const states = Object.fromEntries(after.map((c) => [c.id, c.state]));
    expect(states[voided.id]).toBe('void');
    expect(after.filter((c) => c.state === 'invoiced').map((c) => c.occurred_at.slice(0, 7))).toEqual([
      '2026-09',
      '2026-09',
    ]);
    expect(after.find((c) => c.occurred_at.startsWith('2026-10'))?.state).toBe('recorded');
    const invoiced = after.find((c) => c.state === 'invoiced');
    expect(invoiced?.history).toEqual([
      expect.objectContaining({ from: null, to: 'recorded' }),
      expect.objectContaining({ from: 'recorded', to: 'invoiced', actor_user_id: tenant.user_id }),
    ]);
  });

  it('when the same month is closed twice, at once, then both answers are the one invoice', async () => {
    const tenant = await tenantWithSession();
    await publishPastUsage(t.stack.env.natsUrl, tenant, ['2026-08-10T10:00:00Z', '2026-08-11T10:00:00Z']);
    await chargesOnceRecorded(tenant.session, 2);

    const [a, b] = await Promise.all([
      t.api.post(INVOICES, { key: tenant.session, body: { period: '2026-08' } }),
      t.api.post(INVOICES, { key: tenant.session, body: { period: '2026-08' } }),
    ]);
    const again = await t.api.post(INVOICES, { key: tenant.session, body: { period: '2026-08' } });
    const list = await t.api.get(INVOICES, { key: tenant.session });

    expect([a.status, b.status, again.status]).toEqual([200, 200, 200]);
    expect(b.body).toEqual(a.body);
    expect(again.body).toEqual(a.body);
    expect(a.body).toMatchObject({ charges: 2, total_usd: 0.0002 });
    expect(list).toMatchObject({ status: 200, body: { data: [asListed(a.body)] } });
  });

  it('when the month has not ended, or the period is malformed, then it is refused and nothing changes', async () => {
    const tenant = await tenantWithSession();
    const thisMonth = new Date().toISOString().slice(0, 7);

    const open = await t.api.post(INVOICES, { key: tenant.session, body: { period: thisMonth } });
    const malformed = await Promise.all(
      ['2026-13', '2026-9', 'september', ''].map((period) =>
        t.api.post(INVOICES, { key: tenant.session, body: { period } }),
      ),
    );
    const list = await t.api.get(INVOICES, { key: tenant.session });

    expect(open).toMatchObject({ status: 409, body: { details: { code: 'already_exists' } } });
    for (const res of malformed) {
      expect(res).toMatchObject({ status: 400, body: { details: { code: 'validation_failed' } } });
    }
    expect(list.body).toEqual({ contract_version: 'v1', data: [] });
  });

  it('when a viewer or developer closes a month, then 403; they may list invoices', async () => {
    const tenant = await tenantWithSession();
    const member = async (role: string) => {
      const credentials = {
        email: `${role}-${randomUUID().slice(0, 8)}@example.test`,
        password: `pw-${randomUUID()}`,
      };
      await t.api.post('/api/v1/control/users', { key: tenant.session, body: { ...credentials, role } });
      return t.api.login(credentials.email, credentials.password);
    };

    for (const role of ['viewer', 'developer']) {
      const session = await member(role);
      const close = await t.api.post(INVOICES, { key: session, body: { period: '2026-07' } });
      const list = await t.api.get(INVOICES, { key: session });
      expect(close).toMatchObject({ status: 403, body: { details: { code: 'permission_denied' } } });
      expect(list.status).toBe(200);
    }
  });

  it('when another tenant closes the same month, then only its own charges are invoiced', async () => {
    const owner = await tenantWithSession();
    const other = await tenantWithSession();
    await publishPastUsage(t.stack.env.natsUrl, owner, ['2026-06-10T10:00:00Z']);
    await chargesOnceRecorded(owner.session, 1);

    const res = await t.api.post(INVOICES, { key: other.session, body: { period: '2026-06' } });
    const ownerCharges = await chargesOnceRecorded(owner.session, 1);
    const ownerInvoices = await t.api.get(INVOICES, { key: owner.session });

    expect(res).toMatchObject({ status: 200, body: { charges: 0, total_usd: 0 } });
    expect(ownerCharges.map((c) => c.state)).toEqual(['recorded']);
    expect(ownerInvoices.body).toEqual({ contract_version: 'v1', data: [] });
  });
});
