import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  billingSteps,
  CHARGES,
  type Charge,
  PRICING_VERSION,
  RECALL_MICRO_USD,
  usd,
  WRITE_MICRO_USD,
} from '../support/billing.js';
import { asListed } from '../support/contract.js';
import { controlSteps, TIMESTAMP as timestamp } from '../support/control.js';
import { eventually } from '../support/eventually.js';
import { uniqueNamespace } from '../support/factories.js';
import { useStack } from '../support/stack.js';

const t = useStack();
const { tenantWithSession } = controlSteps(t);
const { memberSession, usage, charges, writes, recalls } = billingSteps(t);

const voidPath = (id: string) => `${CHARGES}/${id}/void`;

/** Publish pending usage, then list every charge of the tenant once billing has `count` of them. */
async function chargesOnceRecorded(session: string, count: number): Promise<Charge[]> {
  await t.stack.memory.flushOutbox();
  const res = await eventually(async () => {
    const r = await charges(session, { limit: '200' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.paging.total).toBeGreaterThanOrEqual(count);
    return r;
  });
  return res.body.data as Charge[];
}

describe('GET /api/v1/control/billing/charges', () => {
  it('when N writes and M recalls are recorded, then N+M charges in state recorded, each tied to its request', async () => {
    const tenant = await tenantWithSession();
    const namespace = uniqueNamespace();
    const written = await writes(tenant, namespace, 3);
    const recalled = await recalls(tenant, namespace, 2);

    await chargesOnceRecorded(tenant.session, 5);
    const res = await charges(tenant.session);

    expect(res).toMatchObject({ status: 200, body: { paging: { limit: 50, offset: 0, total: 5 } } });
    const list = res.body.data as Charge[];
    expect(list).toHaveLength(5);
    const byRequest = new Map(list.map((c) => [c.request_id, c]));
    for (const w of written) {
      expect(byRequest.get(w.res.body.request_id)).toEqual({
        id: expect.any(String),
        state: 'recorded',
        operation: 'memory.write',
        units: 1,
        amount_usd: usd(WRITE_MICRO_USD),
        pricing_version: PRICING_VERSION,
        request_id: w.res.body.request_id,
        idempotency_key: w.key,
        occurred_at: timestamp,
        recorded_at: timestamp,
        history: [{ from: null, to: 'recorded', at: timestamp, actor_user_id: null, reason: null }],
      });
    }
    for (const r of recalled) {
      expect(byRequest.get(r.body.request_id)).toMatchObject({
        state: 'recorded',
        operation: 'memory.recall',
        units: 1,
        amount_usd: usd(RECALL_MICRO_USD),
        idempotency_key: null,
      });
    }
    // Newest operation first.
    const times = list.map((c) => Date.parse(c.occurred_at));
    expect(times).toEqual([...times].sort((x, y) => y - x));
  });

  it('when the writes are replayed, then the charge list still holds N+M charges', async () => {
    const tenant = await tenantWithSession();
    const namespace = uniqueNamespace();
    const written = await writes(tenant, namespace, 2);
    await recalls(tenant, namespace, 1);
    const before = await chargesOnceRecorded(tenant.session, 3);

    for (const w of written) await t.api.write(tenant.api_key, w.body, w.key);
    const sentinel = await recalls(tenant, namespace, 1);
    const after = await chargesOnceRecorded(tenant.session, 4);

    expect(after).toHaveLength(4);
    expect(
      after
        .filter((c) => c.operation === 'memory.write')
        .map((c) => c.id)
        .sort(),
    ).toEqual(
      before
        .filter((c) => c.operation === 'memory.write')
        .map((c) => c.id)
        .sort(),
    );
    expect(after.map((c) => c.request_id)).toContain(sentinel[0]?.body.request_id);
  });

  it('when filtered by operation, state and time, then only the matching charges come back', async () => {
    const tenant = await tenantWithSession();
    const namespace = uniqueNamespace();
    await writes(tenant, namespace, 1);
    const [first] = await chargesOnceRecorded(tenant.session, 1);
    if (!first) throw new Error('no first charge');
    // A boundary strictly after the first operation, with the later ones strictly after it.
    const boundary = new Date(Date.parse(first.occurred_at) + 1);
    await eventually(() => expect(Date.now()).toBeGreaterThan(boundary.getTime()));
    await writes(tenant, namespace, 1);
    await recalls(tenant, namespace, 1);
    const all = await chargesOnceRecorded(tenant.session, 3);
    const recall = all.find((c) => c.operation === 'memory.recall');
    if (!recall) throw new Error('no recall charge');
    await t.api.post(voidPath(recall.id), { key: tenant.session, body: { reason: 'test' } });

    const ids = async (query: Record<string, string>) => {
      const res = await charges(tenant.session, query);
      expect(res.status).toBe(200);
      expect(res.body.paging.total).toBe(res.body.data.length);
      return (res.body.data as Charge[]).map((c) => c.id).sort();
    };
    const writesOnly = await ids({ operation: 'memory.write' });
    const recallsOnly = await ids({ operation: 'memory.recall' });
    const voided = await ids({ state: 'void' });
    const recorded = await ids({ state: 'recorded' });
    const invoiced = await ids({ state: 'invoiced' });
    const after = await ids({ from: boundary.toISOString() });
    const before = await ids({ to: boundary.toISOString() });
    const laterWrites = await ids({
      from: boundary.toISOString(),
      operation: 'memory.write',
      state: 'recorded',
    });

    const idsOf = (list: Charge[]) => list.map((c) => c.id).sort();
    const allWrites = all.filter((c) => c.operation === 'memory.write');
    expect(writesOnly).toEqual(idsOf(allWrites));
    expect(recallsOnly).toEqual([recall.id]);
    expect(voided).toEqual([recall.id]);
    expect(recorded).toEqual(idsOf(allWrites));
    expect(invoiced).toEqual([]);
    expect(after).toEqual(idsOf(all.filter((c) => c.id !== first.id)));
    expect(before).toEqual([first.id]);
    expect(laterWrites).toEqual(idsOf(allWrites.filter((c) => c.id !== first.id)));
  });

  it('when paged with limit and offset, then the pages cover the list once in order, with the total', async () => {
    const tenant = await tenantWithSession();
    await writes(tenant, uniqueNamespace(), 5);
    const all = await chargesOnceRecorded(tenant.session, 5);

    const first = await charges(tenant.session, { limit: '2' });
    const second = await charges(tenant.session, { limit: '2', offset: '2' });
    const third = await charges(tenant.session, { limit: '2', offset: '4' });
    const beyond = await charges(tenant.session, { limit: '2', offset: '10' });
    const widest = await charges(tenant.session, { limit: '200' });

    expect(first).toMatchObject({ status: 200, body: { paging: { limit: 2, offset: 0, total: 5 } } });
    expect(second).toMatchObject({ status: 200, body: { paging: { limit: 2, offset: 2, total: 5 } } });
    expect(third).toMatchObject({ status: 200, body: { paging: { limit: 2, offset: 4, total: 5 } } });
    expect(beyond).toMatchObject({
      status: 200,
      body: { data: [], paging: { limit: 2, offset: 10, total: 5 } },
    });
    expect(widest).toMatchObject({ status: 200, body: { paging: { limit: 200, offset: 0, total: 5 } } });
    const paged = [...first.body.data, ...second.body.data, ...third.body.data].map((c: Charge) => c.id);
    expect(paged).toEqual(all.map((c) => c.id));
  });

  const invalid: Array<[string, Record<string, string>, string]> = [
    ['a limit above 200', { limit: '201' }, 'limit'],
    ['a limit of 0', { limit: '0' }, 'limit'],
    ['a negative offset', { offset: '-1' }, 'offset'],
    ['an unknown state', { state: 'refunded' }, 'state'],
    ['an unknown operation', { operation: 'memory.delete' }, 'operation'],
    ['a from that is not a time', { from: 'yesterday' }, 'from'],
  ];

  it.each(invalid)('when the query has %s, then 400 with field details', async (_label, query, path) => {
    const tenant = await tenantWithSession();

    const res = await charges(tenant.session, query);

    expect(res).toMatchObject({
      status: 400,
      body: { retryable: false, details: { code: 'validation_failed', fields: expect.any(Array) } },
    });
    expect(res.body.details.fields.map((f: { path: string }) => f.path)).toContain(path);
  });

  it('when the query has an unknown parameter, then 400 naming it', async () => {
    const tenant = await tenantWithSession();

    const res = await charges(tenant.session, { tenant_id: 'someone-else' });

    expect(res).toMatchObject({ status: 400, body: { details: { code: 'validation_failed' } } });
    expect(res.body.details.fields).toEqual([{ path: 'tenant_id', message: 'is not a known field' }]);
  });

  it('when a viewer lists charges, then 200; when an API key does, then 403 credential_not_accepted', async () => {
    const tenant = await tenantWithSession();
    const viewer = await memberSession(tenant.session, 'viewer');
    await writes(tenant, uniqueNamespace(), 1);
    await chargesOnceRecorded(tenant.session, 1);

    const byViewer = await charges(viewer.session);
    const byKey = await charges(tenant.api_key);

    expect(byViewer).toMatchObject({ status: 200, body: { paging: { total: 1 } } });
    expect(byKey).toMatchObject({
      status: 403,
      body: { retryable: false, details: { code: 'credential_not_accepted' } },
    });
  });
});

describe('POST /api/v1/control/billing/charges/{id}/void', () => {
  it('when the owner voids a charge twice, then one void with actor and reason, and usage moves its amount from recorded to void', async () => {
    const tenant = await tenantWithSession();
    const namespace = uniqueNamespace();
    await writes(tenant, namespace, 2);
    await recalls(tenant, namespace, 1);
    const list = await chargesOnceRecorded(tenant.session, 3);
    const target = list.find((c) => c.operation === 'memory.write') as Charge;
    const before = await usage(tenant.api_key);

    const voided = await t.api.post(voidPath(target.id), {
      key: tenant.session,
      body: { reason: 'duplicate import' },
    });
    const again = await t.api.post(voidPath(target.id), {
      key: tenant.session,
      body: { reason: 'second attempt' },
    });
    const after = await usage(tenant.api_key);

    expect(voided).toMatchObject({
      status: 200,
      body: {
        ...target,
        state: 'void',
        history: [
          { from: null, to: 'recorded', at: timestamp, actor_user_id: null, reason: null },
          {
            from: 'recorded',
            to: 'void',
            at: timestamp,
            actor_user_id: tenant.user_id,
            reason: 'duplicate import',
          },
        ],
      },
    });
    expect(voided.body.history).toHaveLength(2);
    expect(again).toMatchObject({ status: 200, body: voided.body });
    expect(again.body).toEqual(voided.body);
    expect(before).toMatchObject({
      status: 200,
      body: {
        request_volume: 3,
        recorded_charge_usd: usd(2 * WRITE_MICRO_USD + RECALL_MICRO_USD),
        void_charge_usd: 0,
      },
    });
    expect(after).toMatchObject({
      status: 200,
      body: {
        state: 'billable',
        request_volume: 3,
        operations: [
          { operation: 'memory.recall', requests: 1, units: 1, recorded_charge_usd: usd(RECALL_MICRO_USD) },
          { operation: 'memory.write', requests: 2, units: 2, recorded_charge_usd: usd(WRITE_MICRO_USD) },
        ],
        recorded_charge_usd: usd(WRITE_MICRO_USD + RECALL_MICRO_USD),
        void_charge_usd: target.amount_usd,
      },
    });
    // The charge stays in the ledger with its history; the others are untouched.
    const listed = await charges(tenant.session);
    expect(listed.body.paging.total).toBe(3);
    for (const c of listed.body.data as Charge[]) {
      if (c.id === target.id) expect(c).toEqual(asListed(voided.body));
      else expect(c).toEqual(list.find((l) => l.id === c.id));
    }
  });

  it('when two voids of one charge race, then both answer the void charge and it holds one void event', async () => {
    const tenant = await tenantWithSession();
    await writes(tenant, uniqueNamespace(), 1);
    const [charge] = await chargesOnceRecorded(tenant.session, 1);

    const [first, second] = await Promise.all(
      ['first', 'second'].map((reason) =>
        t.api.post(voidPath(charge?.id as string), { key: tenant.session, body: { reason } }),
      ),
    );

    expect(first).toMatchObject({ status: 200, body: { id: charge?.id, state: 'void' } });
    expect(second).toMatchObject({ status: 200, body: first?.body });
    expect(first?.body.history.map((h: { to: string }) => h.to)).toEqual(['recorded', 'void']);
    const list = await charges(tenant.session);
    expect(list.body.data).toEqual([asListed(first?.body)]);
  });

  it('when an admin voids a charge, then 200 void with the admin as actor', async () => {
    const tenant = await tenantWithSession();
    const admin = await memberSession(tenant.session, 'admin');
    await writes(tenant, uniqueNamespace(), 1);
    const [charge] = await chargesOnceRecorded(tenant.session, 1);

    const res = await t.api.post(voidPath(charge?.id as string), {
      key: admin.session,
      body: { reason: 'goodwill' },
    });

    expect(res).toMatchObject({
      status: 200,
      body: {
        id: charge?.id,
        state: 'void',
        history: [{}, { actor_user_id: admin.userId, reason: 'goodwill' }],
      },
    });
  });

  it.each(['viewer', 'developer'] as const)(
    'when a %s voids a charge, then 403 and the charge stays recorded',
    async (role) => {
      const tenant = await tenantWithSession();
      const member = await memberSession(tenant.session, role);
      await writes(tenant, uniqueNamespace(), 1);
      const [charge] = await chargesOnceRecorded(tenant.session, 1);

      const res = await t.api.post(voidPath(charge?.id as string), {
        key: member.session,
        body: { reason: 'not mine to void' },
      });

      expect(res).toMatchObject({
        status: 403,
        body: { retryable: false, details: { code: 'permission_denied' } },
      });
      const list = await charges(tenant.session);
      expect(list.body.data).toEqual([charge]);
    },
  );

  it('when an API key voids a charge, then 403 credential_not_accepted and the charge stays recorded', async () => {
    const tenant = await tenantWithSession();
    await writes(tenant, uniqueNamespace(), 1);
    const [charge] = await chargesOnceRecorded(tenant.session, 1);

    const res = await t.api.post(voidPath(charge?.id as string), {
      key: tenant.api_key,
      body: { reason: 'by key' },
    });

    expect(res).toMatchObject({ status: 403, body: { details: { code: 'credential_not_accepted' } } });
    const list = await charges(tenant.session);
    expect(list.body.data).toEqual([charge]);
  });

  it.each([
    ['an unknown charge id', () => randomUUID()],
    ['an id that is not an id', () => 'not-a-charge'],
  ])('when the path has %s, then 404', async (_label, id) => {
    const tenant = await tenantWithSession();

    const res = await t.api.post(voidPath(id()), { key: tenant.session, body: { reason: 'nothing there' } });

    expect(res).toMatchObject({ status: 404, body: { retryable: false, details: { code: 'not_found' } } });
  });

  it.each([
    ['no reason', {}, 'reason'],
    ['a blank reason', { reason: '   ' }, 'reason'],
    ['an overlong reason', { reason: 'r'.repeat(501) }, 'reason'],
    ['an unknown field', { reason: 'ok', state: 'recorded' }, 'state'],
  ])('when the body has %s, then 400 and the charge stays recorded', async (_label, body, path) => {
    const tenant = await tenantWithSession();
    await writes(tenant, uniqueNamespace(), 1);
    const [charge] = await chargesOnceRecorded(tenant.session, 1);

    const res = await t.api.post(voidPath(charge?.id as string), { key: tenant.session, body });

    expect(res).toMatchObject({ status: 400, body: { details: { code: 'validation_failed' } } });
    expect(res.body.details.fields.map((f: { path: string }) => f.path)).toContain(path);
    const list = await charges(tenant.session);
    expect(list.body.data).toEqual([charge]);
  });
});
