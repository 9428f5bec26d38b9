import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Streams, Subjects, type UsageRecordedEvent } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import {
  billingSteps,
  type Charge,
  PRICING_VERSION,
  RECALL_MICRO_USD,
  USAGE,
  usd,
  WRITE_MICRO_USD,
} from '../support/billing.js';
import { controlSteps, TIMESTAMP as timestamp } from '../support/control.js';
import { eventually } from '../support/eventually.js';
import {
  createTenant,
  recallBody,
  uniqueKey,
  uniqueNamespace,
  usageRecordFor,
  writeBody,
} from '../support/factories.js';
import { bucketOf, expectedSeries, sumSeries } from '../support/series.js';
import { useStack } from '../support/stack.js';
import { streamMessages } from '../support/stream-reader.js';
import { usageInStream } from '../support/usage-stream.js';

const t = useStack();
const { tenantWithSession } = controlSteps(t);
const { memberSession, usage, charges, writes, recalls } = billingSteps(t);

const CONTROL_USAGE = '/api/v1/control/usage';

type Res = Awaited<ReturnType<typeof t.api.get>>;

/** Publish memory's pending usage rows now, then read the tenant's usage once billing has `volume` of them. */
async function usageOnceRecorded(key: string, volume: number): Promise<Res> {
  await t.stack.memory.flushOutbox();
  return eventually(async () => {
    const res = await usage(key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.request_volume).toBeGreaterThanOrEqual(volume);
    return res;
  });
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

const MINUTE = 60_000;
const EMPTY_POINT = { requests: 0, units: 0, recorded_charge_usd: 0 };

/** An empty window: zeros, and a series of empty buckets (checked in full by emptySeries). */
const noData = (minutes: number, bucketMinutes = 1) => ({
  status: 200,
  body: {
    contract_version: 'v1',
    state: 'no_data',
    window: { minutes, from: timestamp, to: timestamp },
    request_volume: 0,
    operations: [],
    recorded_charge_usd: 0,
    void_charge_usd: 0,
    bucket_minutes: bucketMinutes,
    series: expect.any(Array),
    pricing_version: PRICING_VERSION,
    sandbox: true,
    source_of_truth: { ledger: 'billing', description: expect.any(String), last_recorded_at: null },
    request_id: expect.any(String),
  },
});

/** Every bucket of the answer's window, each empty. */
const emptySeries = (res: Res) => expectedSeries(res.body.window, res.body.bucket_minutes, EMPTY_POINT, {});

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
        state: 'billable',
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
        bucket_minutes: 1,
        series: expect.any(Array),
        pricing_version: PRICING_VERSION,
        sandbox: true,
        source_of_truth: { ledger: 'billing', description: expect.any(String), last_recorded_at: timestamp },
        request_id: expect.any(String),
      },
    });
    expect(res.body.operations).toHaveLength(2);
    // Made within the last minute or two: the series holds them, adding up to the totals.
    expect(sumSeries(res.body.series, ['requests', 'units'] as const)).toEqual({ requests: 5, units: 5 });
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
        state: 'billable',
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

  it('when the only usage record is older than the window, then no_data in the window and billable in a wider one', async () => {
    const tenant = await createTenant();
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60_000).toISOString();
    const record = usageRecordFor(tenant, { pricing_version: PRICING_VERSION, occurred_at: twoHoursAgo });
    await publishUsage(record, record.usage_id);

    const wide = await eventually(async () => {
      const res = await usage(tenant.api_key, '180');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.request_volume).toBeGreaterThan(0);
      return res;
    });
    const lastHour = await usage(tenant.api_key, '60');

    expect(wide).toMatchObject({
      status: 200,
      body: { state: 'billable', request_volume: 1, recorded_charge_usd: usd(WRITE_MICRO_USD) },
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
    expect(res.body.series).toEqual(emptySeries(res));
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

  it.each([
    ['1', 1],
    ['43200', 360],
  ])(
    'when window_minutes is %s (a bound), then 200 with %i-minute buckets',
    async (minutes, bucketMinutes) => {
      const tenant = await createTenant();

      const res = await usage(tenant.api_key, minutes);

      expect(res).toMatchObject(noData(Number(minutes), bucketMinutes));
      expect(res.body.series).toEqual(emptySeries(res));
    },
  );

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

    for (const res of [byKey, bySession, onControl]) {
      expect(res).toMatchObject(noData(60));
      expect(res.body.series).toEqual(emptySeries(res));
    }
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
        state: 'billable',
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

describe('GET /api/v1/infrastructure/usage: series', () => {
  it("when usage happened in two known minutes, then the series lists every minute of the window, those with their operations, units and charges, the rest zero, adding up to the totals; another tenant's usage is never in it", async () => {
    const tenant = await tenantWithSession();
    const other = await createTenant();
    const now = Date.now();
    const ago = (minutes: number) => new Date(now - minutes * MINUTE).toISOString();
    const records = [
      usageRecordFor(tenant, { occurred_at: ago(10.5) }),
      usageRecordFor(tenant, { occurred_at: ago(10.5), units: 3 }),
      usageRecordFor(tenant, { occurred_at: ago(10.5), operation: 'memory.recall' }),
      usageRecordFor(tenant, { occurred_at: ago(40.5) }),
      usageRecordFor(other, { occurred_at: ago(10.5) }),
      usageRecordFor(other, { occurred_at: ago(25.5) }),
    ];
    for (const r of records) await publishUsage({ ...r, pricing_version: PRICING_VERSION }, r.usage_id);

    const res = await eventually(async () => {
      const r = await usage(tenant.api_key);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.request_volume).toBeGreaterThanOrEqual(4);
      return r;
    });
    const onControl = await usage(tenant.session, undefined, CONTROL_USAGE);

    expect(res).toMatchObject({
      status: 200,
      body: { state: 'billable', request_volume: 4, bucket_minutes: 1 },
    });
    for (const answer of [res, onControl]) {
      expect(answer.body.series).toEqual(
        expectedSeries(answer.body.window, 1, EMPTY_POINT, {
          [bucketOf(ago(10.5), 1)]: {
            requests: 3,
            units: 5,
            recorded_charge_usd: usd(4 * WRITE_MICRO_USD + RECALL_MICRO_USD),
          },
          [bucketOf(ago(40.5), 1)]: { requests: 1, units: 1, recorded_charge_usd: usd(WRITE_MICRO_USD) },
        }),
      );
    }
    expect(sumSeries(res.body.series, ['requests', 'units'] as const)).toEqual({ requests: 4, units: 6 });
    const charged = sumSeries(res.body.series, ['recorded_charge_usd'] as const).recorded_charge_usd;
    expect(charged).toBeCloseTo(res.body.recorded_charge_usd, 9);
    expect(res.body.recorded_charge_usd).toBe(usd(5 * WRITE_MICRO_USD + RECALL_MICRO_USD));
  });

  it('when bucket_minutes is given, then the window is cut in buckets of that size, UTC-aligned', async () => {
    const tenant = await createTenant();
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * MINUTE).toISOString();
    const record = usageRecordFor(tenant, { pricing_version: PRICING_VERSION, occurred_at: twoHoursAgo });
    await publishUsage(record, record.usage_id);

    const res = await eventually(async () => {
      const r = await t.api.get(USAGE, {
        key: tenant.api_key,
        query: { window_minutes: '180', bucket_minutes: '60' },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.request_volume).toBeGreaterThan(0);
      return r;
    });

    expect(res).toMatchObject({ status: 200, body: { request_volume: 1, bucket_minutes: 60 } });
    expect(res.body.series).toEqual(
      expectedSeries(res.body.window, 60, EMPTY_POINT, {
        [bucketOf(twoHoursAgo, 60)]: { requests: 1, units: 1, recorded_charge_usd: usd(WRITE_MICRO_USD) },
      }),
    );
    expect(res.body.series[0].from).toMatch(/T\d\d:00:00\.000Z$/);
  });

  it.each([
    [
      { window_minutes: '43200', bucket_minutes: '29' },
      'bucket_minutes must be at least 30 for a window of 43200 minutes (at most 1440 buckets)',
    ],
    [{ bucket_minutes: '1441' }, 'bucket_minutes must be at most 1440'],
  ])('when the query is %j, then 400 naming bucket_minutes, on both usage routes', async (query, message) => {
    const tenant = await tenantWithSession();

    const infra = await t.api.get(USAGE, { key: tenant.api_key, query });
    const control = await t.api.get(CONTROL_USAGE, { key: tenant.session, query });

    for (const res of [infra, control]) {
      expect(res).toMatchObject({
        status: 400,
        body: {
          retryable: false,
          details: { code: 'validation_failed', fields: [{ path: 'bucket_minutes', message }] },
        },
      });
    }
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
    const letters = await eventually(async () => {
      const found = (await streamMessages(Streams.billingDeadLetters.name).catch(() => []))
        .map((text) => JSON.parse(text))
        .filter((letter) => letter.payload.includes(usageId));
      expect(found, 'dead letters carrying the record').not.toHaveLength(0);
      return found;
    });
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

    // The same totals; the series is the 30-minute window's, holding the same two operations.
    const { request_id: _r, window: _w, series: _s, ...same } = infra.body;
    expect(res).toMatchObject({ status: 200, body: { ...same, window: { minutes: 30 } } });
    expect(sumSeries(res.body.series, ['requests', 'units'] as const)).toEqual({ requests: 2, units: 2 });
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
