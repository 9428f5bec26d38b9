import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Streams, Subjects, type UsageRecordedEvent } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import {
  createTenant,
  recallBody,
  uniqueKey,
  uniqueNamespace,
  usageRecordFor,
  writeBody,
} from './support/factories.js';
import { useStack } from './support/stack.js';
import { streamMessages } from './support/stream-reader.js';
import { usageInStream } from './support/usage-stream.js';

const t = useStack();

const USAGE = '/api/v1/infrastructure/usage';
const CONTROL_USAGE = '/api/v1/control/usage';
const CHARGES = '/api/v1/control/billing/charges';
const voidPath = (id: string) => `${CHARGES}/${id}/void`;

const PRICING_VERSION = 'sandbox-2026-11';
/** The sandbox price list (billing's migration), in micro-USD a unit: 0.0001 and 0.00005 USD. */
const WRITE_MICRO_USD = 100;
const RECALL_MICRO_USD = 50;
const usd = (micro: number) => micro / 1_000_000;
const timestamp = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

type Tenant = Awaited<ReturnType<typeof createTenant>>;
type Res = Awaited<ReturnType<typeof t.api.get>>;
interface Charge {
  id: string;
  state: string;
  operation: 'memory.write' | 'memory.recall';
  units: number;
  amount_usd: number;
  request_id: string;
  idempotency_key: string | null;
  occurred_at: string;
  history: Array<Record<string, unknown>>;
}

/** A tenant and its owner's session token. */
async function tenantWithSession(options: { consent?: boolean } = {}): Promise<Tenant & { session: string }> {
  const tenant = await createTenant(options);
  return { ...tenant, session: await t.api.login(tenant.owner.email, tenant.owner.password) };
}

/** A new member of the owner's tenant with `role`, signed in: their user id and session token. */
async function memberSession(ownerSession: string, role: 'admin' | 'developer' | 'viewer') {
  const member = {
    email: `${role}-${randomUUID().slice(0, 8)}@example.test`,
    password: `pw-${randomUUID()}`,
  };
  const added = await t.api.post('/api/v1/control/users', {
    key: ownerSession,
    body: { ...member, role },
  });
  if (added.status !== 201)
    throw new Error(`member not added: ${added.status} ${JSON.stringify(added.body)}`);
  return { userId: added.body.id as string, session: await t.api.login(member.email, member.password) };
}

const usage = (key: string, windowMinutes?: string, path = USAGE) =>
  t.api.get(path, {
    key,
    ...(windowMinutes === undefined ? {} : { query: { window_minutes: windowMinutes } }),
  });

const charges = (session: string, query: Record<string, string> = {}) =>
  t.api.get(CHARGES, { key: session, query });

/** Read until `done` holds, for at most ten seconds: billing consumes usage records off the request's path. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let attempt = 0; attempt < 200 && !done(value); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

/** Publish memory's pending usage rows now, then read the tenant's usage once billing has `volume` of them. */
async function usageOnceRecorded(key: string, volume: number): Promise<Res> {
  await t.stack.memory.flushOutbox();
  return eventually(
    () => usage(key),
    (res) => res.status === 200 && res.body.request_volume >= volume,
  );
}

/** Publish pending usage, then list every charge of the tenant once billing has `count` of them. */
async function chargesOnceRecorded(session: string, count: number): Promise<Charge[]> {
  await t.stack.memory.flushOutbox();
  const res = await eventually(
    () => charges(session, { limit: '200' }),
    (r) => r.status === 200 && r.body.paging.total >= count,
  );
  return res.body.data as Charge[];
}

async function writes(tenant: Tenant, namespace: string, n: number) {
  const sent = [];
  for (let i = 0; i < n; i++) {
    const key = uniqueKey();
    const body = writeBody(namespace, `billing note ${i}`);
    const res = await t.api.write(tenant.api_key, body, key);
    expect(res.status).toBe(200);
    sent.push({ key, body, res });
  }
  return sent;
}

async function recalls(tenant: Tenant, namespace: string, m: number) {
  const sent = [];
  for (let i = 0; i < m; i++) {
    const res = await t.api.recall(tenant.api_key, recallBody(namespace, 'billing note'));
    expect(res.status).toBe(200);
    sent.push(res);
  }
  return sent;
}

/** Publish straight to memory's usage stream, as a relay re-send or a foreign producer would. */
async function publishUsage(record: UsageRecordedEvent, msgId: string) {
  const nc = await connect({ servers: t.stack.env.natsUrl });
  try {
    await jetstream(nc).publish(Subjects.memory.usageRecorded, JSON.stringify(record), { msgID: msgId });
  } finally {
    await nc.close();
  }
}

const noData = (minutes: number) => ({
  status: 200,
  body: {
    contract_version: 'v1',
    state: 'no_data',
    window: { minutes, from: timestamp, to: timestamp },
    request_volume: 0,
    operations: [],
    recorded_charge_usd: 0,
    void_charge_usd: 0,
    pricing_version: PRICING_VERSION,
    sandbox: true,
    source_of_truth: { ledger: 'billing', description: expect.any(String), last_recorded_at: null },
    request_id: expect.any(String),
  },
});

describe('GET /api/v1/infrastructure/usage', () => {
  it('when N writes and M recalls are made, then request volume, operations, units and recorded_charge_usd are exact, from the billing ledger', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const written = await writes(tenant, namespace, 3);
    const recalled = await recalls(tenant, namespace, 2);

    const res = await usageOnceRecorded(tenant.api_key, 5);

    expect(res).toMatchObject({
      status: 200,
      body: {
        contract_version: 'v1',
        state: 'measured',
        window: { minutes: 60, from: timestamp, to: timestamp },
        request_volume: 5,
        operations: [
          {
            operation: 'memory.recall',
            requests: 2,
            units: 2,
            recorded_charge_usd: usd(2 * RECALL_MICRO_USD),
          },
          { operation: 'memory.write', requests: 3, units: 3, recorded_charge_usd: usd(3 * WRITE_MICRO_USD) },
        ],
        recorded_charge_usd: 0.0004,
        void_charge_usd: 0,
        pricing_version: PRICING_VERSION,
        sandbox: true,
        source_of_truth: { ledger: 'billing', description: expect.any(String), last_recorded_at: timestamp },
        request_id: expect.any(String),
      },
    });
    expect(res.body.operations).toHaveLength(2);
    // The usage block each response carried agrees with what billing recorded.
    for (const r of [...written.map((w) => w.res), ...recalled]) {
      expect(r.body.usage).toEqual({
        billing_state: 'billable',
        operation_units: 1,
        pricing_version: PRICING_VERSION,
        sandbox: true,
      });
    }
  });

  it('when the same writes are replayed with their idempotency keys, then they report the original usage block and the ledger still holds N+M', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const written = await writes(tenant, namespace, 3);
    await recalls(tenant, namespace, 1);
    await usageOnceRecorded(tenant.api_key, 4);

    const replays = [];
    for (const w of written) replays.push(await t.api.write(tenant.api_key, w.body, w.key));
    // A later billable operation: once billing has it, anything the replays had enqueued before it is in too.
    await recalls(tenant, namespace, 1);
    const res = await usageOnceRecorded(tenant.api_key, 5);

    for (const [i, replay] of replays.entries()) {
      const original = written[i]?.res.body;
      expect(replay).toMatchObject({
        status: 200,
        body: {
          idempotency_outcome: 'Replayed',
          original_request_id: original.request_id,
          usage: original.usage,
        },
      });
    }
    expect(res).toMatchObject({
      status: 200,
      body: {
        state: 'measured',
        request_volume: 5,
        operations: [
          {
            operation: 'memory.recall',
            requests: 2,
            units: 2,
            recorded_charge_usd: usd(2 * RECALL_MICRO_USD),
          },
          { operation: 'memory.write', requests: 3, units: 3, recorded_charge_usd: usd(3 * WRITE_MICRO_USD) },
        ],
        recorded_charge_usd: 0.0004,
      },
    });
  });

  it('when a write is not retained (no consent), then its usage block says no_data and billing records nothing for it', async () => {
    const tenant = await createTenant({ consent: false });
    const namespace = uniqueNamespace();

    const written = await t.api.write(tenant.api_key, writeBody(namespace, 'not kept'), uniqueKey());
    // A billable operation after it, so the ledger is known to have caught up past the write.
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'not kept'));
    const res = await usageOnceRecorded(tenant.api_key, 1);

    expect(written).toMatchObject({
      status: 200,
      body: {
        state: 'not_retained',
        usage: { billing_state: 'no_data', operation_units: 0, pricing_version: PRICING_VERSION },
      },
    });
    expect(recalled.status).toBe(200);
    expect(res).toMatchObject({
      status: 200,
      body: {
        request_volume: 1,
        operations: [
          { operation: 'memory.recall', requests: 1, units: 1, recorded_charge_usd: usd(RECALL_MICRO_USD) },
        ],
        recorded_charge_usd: usd(RECALL_MICRO_USD),
      },
    });
  });

  it('when the only usage record is older than the window, then no_data in the window and measured in a wider one', async () => {
    const tenant = await createTenant();
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60_000).toISOString();
    const record = usageRecordFor(tenant, { pricing_version: PRICING_VERSION, occurred_at: twoHoursAgo });
    await publishUsage(record, record.usage_id);

    const wide = await eventually(
      () => usage(tenant.api_key, '180'),
      (res) => res.status === 200 && res.body.request_volume > 0,
    );
    const lastHour = await usage(tenant.api_key, '60');

    expect(wide).toMatchObject({
      status: 200,
      body: { state: 'measured', request_volume: 1, recorded_charge_usd: usd(WRITE_MICRO_USD) },
    });
    expect(lastHour).toMatchObject({
      ...noData(60),
      body: { ...noData(60).body, source_of_truth: { ledger: 'billing', last_recorded_at: timestamp } },
    });
  });

  it('when the tenant has no usage in the window, then state no_data with zeros and no last record', async () => {
    const tenant = await createTenant();

    const res = await usage(tenant.api_key, '5');

    expect(res).toMatchObject(noData(5));
    const { from, to } = res.body.window;
    expect(Date.parse(to) - Date.parse(from)).toBe(5 * 60_000);
  });

  it('when no window is given, then the default of 60 minutes is used', async () => {
    const tenant = await createTenant();

    const res = await usage(tenant.api_key);

    expect(res).toMatchObject(noData(60));
    const { from, to } = res.body.window;
    expect(Date.parse(to) - Date.parse(from)).toBe(60 * 60_000);
  });

  it.each(['1', '43200'])('when window_minutes is %s (a bound), then 200', async (minutes) => {
    const tenant = await createTenant();

    const res = await usage(tenant.api_key, minutes);

    expect(res).toMatchObject(noData(Number(minutes)));
  });

  it.each(['0', '-1', '43201', 'abc', '1.5', ''])(
    'when window_minutes is %j, then 400 with field details',
    async (minutes) => {
      const tenant = await createTenant();

      const res = await usage(tenant.api_key, minutes);

      expect(res).toMatchObject({
        status: 400,
        body: { retryable: false, details: { code: 'validation_failed', fields: expect.any(Array) } },
      });
      expect(res.body.details.fields.map((f: { path: string }) => f.path)).toEqual(['window_minutes']);
    },
  );

  it('when an unknown query parameter is sent, then 400 naming it', async () => {
    const tenant = await createTenant();

    const res = await t.api.get(USAGE, { key: tenant.api_key, query: { tenant_id: 'someone-else' } });

    expect(res).toMatchObject({ status: 400, body: { details: { code: 'validation_failed' } } });
    expect(res.body.details.fields).toEqual([{ path: 'tenant_id', message: 'is not a known field' }]);
  });

  it("when tenant B reads usage by key or session, then none of tenant A's usage is in it", async () => {
    const a = await createTenant();
    const b = await tenantWithSession();
    await writes(a, uniqueNamespace(), 2);
    await usageOnceRecorded(a.api_key, 2);

    const byKey = await usage(b.api_key);
    const bySession = await usage(b.session);
    const onControl = await usage(b.session, undefined, CONTROL_USAGE);
    const list = await charges(b.session);

    for (const res of [byKey, bySession, onControl]) expect(res).toMatchObject(noData(60));
    expect(list).toMatchObject({ status: 200, body: { data: [], paging: { total: 0 } } });
    expect(JSON.stringify([byKey.body, bySession.body, onControl.body, list.body])).not.toContain(
      a.tenant_id,
    );
  });

  it('when a session reads usage, then it sees the same ledger as the API key', async () => {
    const tenant = await tenantWithSession();
    const viewer = await memberSession(tenant.session, 'viewer');
    await writes(tenant, uniqueNamespace(), 2);
    const byKey = await usageOnceRecorded(tenant.api_key, 2);

    const bySession = await usage(viewer.session);

    expect(bySession).toMatchObject({
      status: 200,
      body: {
        state: 'measured',
        request_volume: 2,
        operations: byKey.body.operations,
        recorded_charge_usd: usd(2 * WRITE_MICRO_USD),
      },
    });
  });

  it('when the API key lacks telemetry:read, then 403 permission_denied', async () => {
    const tenant = await tenantWithSession();
    const created = await t.api.post('/api/v1/control/api-keys', {
      key: tenant.session,
      body: { name: 'writer only', permissions: ['memory:write'] },
    });

    const res = await usage(created.body.key);

    expect(created.status).toBe(201);
    expect(res).toMatchObject({
      status: 403,
      body: { retryable: false, details: { code: 'permission_denied' } },
    });
    expect(res.body.error).toContain('telemetry:read');
  });

  it('when no credential is presented, then 401', async () => {
    const res = await t.api.get(USAGE, { query: { window_minutes: '60' } });

    expect(res).toMatchObject({ status: 401, body: { details: { code: 'authentication_required' } } });
  });
});

describe('usage records consumed by billing', () => {
  it('when billing is down while usage is published and restarts twice, then each record is charged exactly once', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    await t.stack.stopBilling();
    try {
      await writes(tenant, namespace, 2);
      await t.stack.memory.flushOutbox();
    } finally {
      await t.stack.startBilling();
    }

    const afterRestart = await usageOnceRecorded(tenant.api_key, 2);
    await t.stack.stopBilling();
    await t.stack.startBilling();
    await recalls(tenant, namespace, 1);
    const afterSecondRestart = await usageOnceRecorded(tenant.api_key, 3);

    expect(afterRestart).toMatchObject({ status: 200, body: { request_volume: 2 } });
    expect(afterSecondRestart).toMatchObject({
      status: 200,
      body: {
        request_volume: 3,
        operations: [
          { operation: 'memory.recall', requests: 1 },
          { operation: 'memory.write', requests: 2 },
        ],
        recorded_charge_usd: usd(2 * WRITE_MICRO_USD + RECALL_MICRO_USD),
      },
    });
  });

  it('when a usage record reaches the stream a second time under another message id, then billing keeps one charge', async () => {
    const tenant = await tenantWithSession();
    const namespace = uniqueNamespace();
    await writes(tenant, namespace, 1);
    await usageOnceRecorded(tenant.api_key, 1);
    const [record] = await usageInStream(tenant.tenant_id);
    if (!record) throw new Error('no usage record in the stream');

    await publishUsage(record, `redelivered-${randomUUID()}`);
    await recalls(tenant, namespace, 1);
    const res = await usageOnceRecorded(tenant.api_key, 2);
    const list = await charges(tenant.session);

    expect(res).toMatchObject({
      status: 200,
      body: { request_volume: 2, recorded_charge_usd: usd(WRITE_MICRO_USD + RECALL_MICRO_USD) },
    });
    expect(list.body.data.map((c: Charge) => c.operation).sort()).toEqual(['memory.recall', 'memory.write']);
  });

  it('when a usage record has no price, then it goes to the dead-letter subject with the reason and is not charged', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const record = usageRecordFor(tenant, { namespace, pricing_version: 'sandbox-1999-01' });
    const usageId = record.usage_id;

    await publishUsage(record, usageId);
    const letters = await eventually(
      async () =>
        (await streamMessages(Streams.billingDeadLetters.name).catch(() => []))
          .map((text) => JSON.parse(text))
          .filter((letter) => letter.payload.includes(usageId)),
      (found) => found.length > 0,
    );
    await recalls(tenant, namespace, 1);
    const res = await usageOnceRecorded(tenant.api_key, 1);

    expect(letters).toEqual([
      {
        stream_sequence: expect.any(Number),
        subject: Subjects.memory.usageRecorded,
        reason: 'no price for memory.write in sandbox-1999-01',
        payload: expect.any(String),
        dead_lettered_at: timestamp,
      },
    ]);
    expect(JSON.parse(letters[0].payload)).toEqual(record);
    expect(res).toMatchObject({
      status: 200,
      body: { request_volume: 1, operations: [{ operation: 'memory.recall', requests: 1 }] },
    });
  });
});

describe('GET /api/v1/control/usage', () => {
  it('when the owner reads usage, then it matches the infrastructure route', async () => {
    const tenant = await tenantWithSession();
    const namespace = uniqueNamespace();
    await writes(tenant, namespace, 1);
    await recalls(tenant, namespace, 1);
    const infra = await usageOnceRecorded(tenant.api_key, 2);

    const res = await usage(tenant.session, '30', CONTROL_USAGE);

    const { request_id: _r, window: _w, ...same } = infra.body;
    expect(res).toMatchObject({ status: 200, body: { ...same, window: { minutes: 30 } } });
  });

  it.each(['0', '43201', 'abc'])(
    'when window_minutes is %j, then 400 with field details',
    async (minutes) => {
      const tenant = await tenantWithSession();

      const res = await usage(tenant.session, minutes, CONTROL_USAGE);

      expect(res).toMatchObject({ status: 400, body: { details: { code: 'validation_failed' } } });
      expect(res.body.details.fields.map((f: { path: string }) => f.path)).toEqual(['window_minutes']);
    },
  );

  it('when an API key is used, then 403 credential_not_accepted', async () => {
    const tenant = await createTenant();

    const res = await usage(tenant.api_key, '60', CONTROL_USAGE);

    expect(res).toMatchObject({ status: 403, body: { details: { code: 'credential_not_accepted' } } });
  });
});

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
    await eventually(
      async () => Date.now(),
      (now) => now > boundary.getTime(),
    );
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
        state: 'measured',
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
      if (c.id === target.id) expect(c).toEqual(voided.body);
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
    expect(list.body.data).toEqual([first?.body]);
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
