import { randomUUID } from 'node:crypto';
import { DiscardPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  Consumers,
  outboxBatchText,
  Streams,
  Subjects,
  UsageDeadLetter,
  type UsageResponse,
} from '@tm/contracts';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import {
  createTenant,
  recallBody,
  uniqueKey,
  uniqueNamespace,
  usageRecordFor,
  writeBody,
} from '../support/factories.js';
import { useStack } from '../support/stack.js';
import { streamMessages } from '../support/stream-reader.js';
import { usageInStream } from '../support/usage-stream.js';

const t = useStack();

type Tenant = Awaited<ReturnType<typeof createTenant>>;

/** The sandbox prices the billing migration publishes (sandbox-2026-11), in micro-USD a unit. */
const PRICE_MICRO_USD = { 'memory.write': 100, 'memory.recall': 50 } as const;
const usd = (micro: number) => micro / 1_000_000;

// ---- helpers --------------------------------------------------------------------------------------

/**
 * billing-usage's ack_wait. JetStream delivers at least once: a delivery lost on the way (a pull
 * request the client gave up on as the server filled it) comes back only after this, so waits for
 * billing outlast it, and so do these tests' timeouts.
 */
const ACK_WAIT_MS = 10_000;
const slow = { timeout: ACK_WAIT_MS * 3 };
/** How long to wait for billing: past one redelivery; it bounds the test, it is not asserted. */
const BILLING_WAIT = { timeout: ACK_WAIT_MS + 15_000 };

async function withNats<T>(fn: (nc: NatsConnection) => Promise<T>): Promise<T> {
  const nc = await connect({ servers: t.stack.env.natsUrl });
  try {
    return await fn(nc);
  } finally {
    await nc.close();
  }
}

/** Stream sequences of the messages this file published by hand; removed after each test. */
const handPublished: number[] = [];

/** Publish raw bytes to the usage subject as any publisher could; returns the stream sequence. */
const publishUsage = (data: string, msgId = `test-${randomUUID()}`) =>
  withNats(async (nc) => {
    const ack = await jetstream(nc).publish(Subjects.memory.usageRecorded, data, { msgID: msgId });
    handPublished.push(ack.seq);
    return { seq: ack.seq, duplicate: ack.duplicate };
  });

// Other files read MEMORY_USAGE from the start and expect only usage records in it.
afterEach(() =>
  withNats(async (nc) => {
    const jsm = await jetstreamManager(nc);
    for (const seq of handPublished.splice(0))
      await jsm.streams.deleteMessage(Streams.memoryUsage.name, seq, false);
  }),
);

const billingConsumer = () =>
  withNats(async (nc) =>
    (await jetstreamManager(nc)).consumers.info(Streams.memoryUsage.name, Consumers.billingUsage),
  );

/**
 * Wait until billing's durable consumer has acknowledged everything in the stream (nothing pending,
 * nothing awaiting an ack). Only then is a count final: a late duplicate would have landed by now.
 */
async function billingDrained() {
  const { state } = await withNats(async (nc) =>
    (await jetstreamManager(nc)).streams.info(Streams.memoryUsage.name),
  );
  const info = await eventually(async () => {
    const c = await billingConsumer();
    expect(c).toMatchObject({ num_pending: 0, num_ack_pending: 0 });
    expect(c.ack_floor.stream_seq).toBeGreaterThanOrEqual(state.last_seq);
    return c;
  }, BILLING_WAIT);
  return {
    num_pending: info.num_pending,
    num_ack_pending: info.num_ack_pending,
    acked_through_last: info.ack_floor.stream_seq >= state.last_seq,
  };
}

const usageOf = async (tenant: Tenant): Promise<{ status: number; body: UsageResponse }> =>
  t.api.get('/api/v1/infrastructure/usage', { key: tenant.api_key, query: { window_minutes: '60' } });

/** Every charge of the tenant, through the control API (one page holds them all here). */
async function chargesOf(tenant: Tenant) {
  const token = await t.api.login(tenant.owner.email, tenant.owner.password);
  const res = await t.api.get('/api/v1/control/billing/charges', { key: token, query: { limit: '200' } });
  expect(res.status).toBe(200);
  return res.body as {
    data: Array<{ id: string; operation: string; idempotency_key: string | null; request_id: string }>;
    paging: { total: number };
  };
}

/** Poll the usage route until the ledger holds `expected` operations, then until billing has drained. */
async function settledUsage(tenant: Tenant, expected: number) {
  await eventually(async () => {
    const r = await usageOf(tenant);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.request_volume).toBeGreaterThanOrEqual(expected);
  }, BILLING_WAIT);
  const consumer = await billingDrained();
  return { consumer, usage: await usageOf(tenant) };
}

const deadLetters = async () =>
  (await streamMessages(Streams.billingDeadLetters.name)).map((text) =>
    UsageDeadLetter.parse(JSON.parse(text)),
  );

const expectedUsage = (writes: number, recalls: number) => ({
  status: 200,
  body: {
    state: 'billable',
    request_volume: writes + recalls,
    operations: [
      ...(recalls
        ? [
            {
              operation: 'memory.recall',
              requests: recalls,
              units: recalls,
              recorded_charge_usd: usd(recalls * PRICE_MICRO_USD['memory.recall']),
            },
          ]
        : []),
      {
        operation: 'memory.write',
        requests: writes,
        units: writes,
        recorded_charge_usd: usd(writes * PRICE_MICRO_USD['memory.write']),
      },
    ],
    recorded_charge_usd: usd(
      writes * PRICE_MICRO_USD['memory.write'] + recalls * PRICE_MICRO_USD['memory.recall'],
    ),
    void_charge_usd: 0,
    source_of_truth: { ledger: 'billing' },
  },
});

const drainedConsumer = { num_pending: 0, num_ack_pending: 0, acked_through_last: true };

async function writeMany(tenant: Tenant, namespace: string, count: number, label: string) {
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const key = uniqueKey(label);
    const res = await t.api.write(tenant.api_key, writeBody(namespace, `${label} note ${i}`), key);
    expect(res.status).toBe(200);
    keys.push(key);
  }
  return keys;
}

async function recallMany(tenant: Tenant, namespace: string, count: number) {
  for (let i = 0; i < count; i++) {
    const res = await t.api.recall(tenant.api_key, recallBody(namespace, 'note'));
    expect(res.status).toBe(200);
  }
}

// ---- tests -----------------------------------------------------------------------------------------

describe('billing consumer stopped and restarted', slow, () => {
  it('when billing stops mid-stream while writes and recalls go on, then after restart every operation is charged exactly once', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const before = await writeMany(tenant, namespace, 20, 'before');
    await recallMany(tenant, namespace, 5);
    await t.stack.memory.flushOutbox();

    // Right after the flush, billing may be in the middle of a batch of these.
    await t.stack.stopBilling();
    const during = await writeMany(tenant, namespace, 20, 'during');
    await recallMany(tenant, namespace, 10);
    await t.stack.memory.flushOutbox();
    const waiting = await billingConsumer();
    await t.stack.startBilling();
    const { consumer, usage } = await settledUsage(tenant, 55);
    const charges = await chargesOf(tenant);

    // The 30 records of the stop travel in relay batches: messages, not records, are pending.
    expect(waiting.num_pending).toBeGreaterThan(0);
    expect(consumer).toEqual(drainedConsumer);
    expect(usage).toMatchObject(expectedUsage(40, 15));
    expect(charges.paging.total).toBe(55);
    expect(new Set(charges.data.map((c) => c.id)).size).toBe(55);
    expect(
      charges.data
        .filter((c) => c.operation === 'memory.write')
        .map((c) => c.idempotency_key)
        .sort(),
    ).toEqual([...before, ...during].sort());
    expect(new Set(charges.data.map((c) => c.request_id)).size).toBe(55);
  });
});

describe('redelivered usage records', slow, () => {
  it('when a copy of an already charged record is stored in the stream again (re-send after the dedupe window), then it is not charged twice', async () => {
    const tenant = await createTenant();
    const key = uniqueKey();
    await t.api.write(tenant.api_key, writeBody(uniqueNamespace(), 'charged once'), key);
    await t.stack.memory.flushOutbox();
    await settledUsage(tenant, 1);
    const [record] = await usageInStream(tenant.tenant_id);
    const lettersBefore = (await deadLetters()).length;

    // Another msg id, so the stream stores it again as it would a re-send outside its dedupe window.
    const copies = [await publishUsage(JSON.stringify(record)), await publishUsage(JSON.stringify(record))];
    const { consumer, usage } = await settledUsage(tenant, 1);
    const charges = await chargesOf(tenant);

    expect(copies.map((c) => c.duplicate)).toEqual([false, false]);
    expect(consumer).toEqual(drainedConsumer);
    expect(usage).toMatchObject(expectedUsage(1, 0));
    expect(charges.paging.total).toBe(1);
    expect(charges.data[0]).toMatchObject({ operation: 'memory.write', idempotency_key: key });
    expect(await deadLetters()).toHaveLength(lettersBefore); // a duplicate is not an error
  });

  it('when the original and its redelivery reach billing in the same batch, then one charge is recorded and the consumer moves on', async () => {
    const tenant = await createTenant();
    await t.stack.stopBilling();
    const key = uniqueKey();
    await t.api.write(tenant.api_key, writeBody(uniqueNamespace(), 'same batch'), key);
    await t.stack.memory.flushOutbox();
    const [record] = await usageInStream(tenant.tenant_id);
    await publishUsage(JSON.stringify(record));

    await t.stack.startBilling();
    const { consumer, usage } = await settledUsage(tenant, 1);
    const charges = await chargesOf(tenant);

    expect(consumer).toEqual(drainedConsumer);
    expect(usage).toMatchObject(expectedUsage(1, 0));
    expect(charges.paging.total).toBe(1);
    expect(charges.data[0]).toMatchObject({ operation: 'memory.write', idempotency_key: key });
  });
});

describe('memory outbox relay restarted', slow, () => {
  it('when memory stops after writes commit but before the relay publishes them, then after restart each write is charged once', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const db = new pg.Client({ connectionString: t.stack.env.memoryDbUrl });
    await db.connect();
    const pendingRows = async () =>
      (
        await db.query(`SELECT count(*)::int AS n FROM outbox_message WHERE payload->>'tenant_id' = $1`, [
          tenant.tenant_id,
        ])
      ).rows[0].n as number;
    // Hold the relay between commit and publish: the stream refuses new messages for a moment.
    const jsmConfig = await withNats(async (nc) => {
      const jsm = await jetstreamManager(nc);
      const { config, state } = await jsm.streams.info(Streams.memoryUsage.name);
      await jsm.streams.update(Streams.memoryUsage.name, {
        max_msgs: state.messages,
        discard: DiscardPolicy.New,
      });
      return { max_msgs: config.max_msgs, discard: config.discard };
    });
    let keys: string[];
    let pendingAtStop: number;
    try {
      keys = await writeMany(tenant, namespace, 5, 'unpublished');
      await t.stack.stopMemory();
      pendingAtStop = await pendingRows();
    } finally {
      await withNats(async (nc) =>
        (await jetstreamManager(nc)).streams.update(Streams.memoryUsage.name, jsmConfig),
      );
      await t.stack.startMemory();
    }

    await t.stack.memory.flushOutbox();
    const { consumer, usage } = await settledUsage(tenant, 5);
    const charges = await chargesOf(tenant);
    const pendingAfter = await pendingRows();
    await db.end();

    expect(pendingAtStop).toBe(5);
    expect(pendingAfter).toBe(0);
    expect(consumer).toEqual(drainedConsumer);
    expect(usage).toMatchObject(expectedUsage(5, 0));
    expect(charges.data.map((c) => c.idempotency_key).sort()).toEqual([...keys].sort());
  });

  it('when memory stops after the relay published but before it removed the rows, then the re-send is charged once', async () => {
    const tenant = await createTenant();
    const keys = await writeMany(tenant, uniqueNamespace(), 3, 'resent');
    await t.stack.memory.flushOutbox();
    await settledUsage(tenant, 3);
    const records = await usageInStream(tenant.tenant_id);

    // The rows as they were before the relay removed them (usage-outbox.test.ts does the same).
    await t.stack.stopMemory();
    const db = new pg.Client({ connectionString: t.stack.env.memoryDbUrl });
    await db.connect();
    for (const record of records) {
      await db.query('INSERT INTO outbox_message (id, subject, payload) VALUES ($1, $2, $3)', [
        record.usage_id,
        Subjects.memory.usageRecorded,
        JSON.stringify(record),
      ]);
    }
    await db.end();
    await t.stack.startMemory();
    await t.stack.memory.flushOutbox();
    const { consumer, usage } = await settledUsage(tenant, 3);
    const charges = await chargesOf(tenant);

    expect(records).toHaveLength(3);
    expect(consumer).toEqual(drainedConsumer);
    expect(usage).toMatchObject(expectedUsage(3, 0));
    expect(charges.data.map((c) => c.idempotency_key).sort()).toEqual([...keys].sort());
  });
});

describe('usage records billing cannot process', slow, () => {
  it('when records are not JSON, do not match the schema or name an unknown pricing version, then each is dead-lettered with its reason, none is charged, and later usage still is', async () => {
    const tenant = await createTenant();
    const marker = randomUUID();
    const notJson = `not json ${marker} {`;
    const wrongShape = JSON.stringify({ usage_id: marker, tenant_id: tenant.tenant_id, units: 'one' });
    const unknownVersion = JSON.stringify(
      usageRecordFor(tenant, { usage_id: marker, pricing_version: `no-such-version-${marker}` }),
    );
    const sent = [
      await publishUsage(notJson),
      await publishUsage(wrongShape),
      await publishUsage(unknownVersion),
    ];

    const key = uniqueKey();
    await t.api.write(tenant.api_key, writeBody(uniqueNamespace(), 'after the bad ones'), key);
    await t.stack.memory.flushOutbox();
    const { consumer, usage } = await settledUsage(tenant, 1);
    const charges = await chargesOf(tenant);
    const letters = (await deadLetters()).filter((l) => l.payload.includes(marker));

    expect(consumer).toEqual(drainedConsumer);
    expect(letters.sort((a, b) => a.stream_sequence - b.stream_sequence)).toEqual([
      {
        stream_sequence: sent[0]?.seq,
        subject: Subjects.memory.usageRecorded,
        reason: expect.stringMatching(/not JSON/i),
        payload: notJson,
        dead_lettered_at: expect.any(String),
      },
      {
        stream_sequence: sent[1]?.seq,
        subject: Subjects.memory.usageRecorded,
        reason: expect.stringMatching(/schema/i),
        payload: wrongShape,
        dead_lettered_at: expect.any(String),
      },
      {
        stream_sequence: sent[2]?.seq,
        subject: Subjects.memory.usageRecorded,
        reason: expect.stringContaining(`no-such-version-${marker}`),
        payload: unknownVersion,
        dead_lettered_at: expect.any(String),
      },
    ]);
    expect(usage).toMatchObject(expectedUsage(1, 0));
    expect(charges.paging.total).toBe(1);
    expect(charges.data[0]).toMatchObject({ operation: 'memory.write', idempotency_key: key });
  });

  it('when records pass the schema but cannot be stored (occurred_at not a time, units beyond the ledger), then each is dead-lettered and the records in their batch are still charged', async () => {
    const tenant = await createTenant();
    const marker = randomUUID();
    await t.stack.stopBilling();
    const key = uniqueKey();
    await t.api.write(tenant.api_key, writeBody(uniqueNamespace(), 'before the bad ones'), key);
    await t.stack.memory.flushOutbox();
    const badTime = JSON.stringify(
      usageRecordFor(tenant, { usage_id: `${marker}-time`, occurred_at: 'yesterday' }),
    );
    const tooManyUnits = JSON.stringify(
      usageRecordFor(tenant, { usage_id: `${marker}-units`, units: 3_000_000_000 }),
    );
    const sent = [await publishUsage(badTime), await publishUsage(tooManyUnits)];
    const good = usageRecordFor(tenant);
    await publishUsage(JSON.stringify(good));

    await t.stack.startBilling();
    const { consumer, usage } = await settledUsage(tenant, 2);
    const charges = await chargesOf(tenant);
    const letters = (await deadLetters()).filter((l) => l.payload.includes(marker));

    expect(consumer).toEqual(drainedConsumer);
    expect(letters.sort((a, b) => a.stream_sequence - b.stream_sequence)).toEqual([
      {
        stream_sequence: sent[0]?.seq,
        subject: Subjects.memory.usageRecorded,
        reason: 'occurred_at is not a timestamp: "yesterday"',
        payload: badTime,
        dead_lettered_at: expect.any(String),
      },
      {
        stream_sequence: sent[1]?.seq,
        subject: Subjects.memory.usageRecorded,
        reason: expect.stringMatching(/^the ledger refused the record: .*out of range for type integer/),
        payload: tooManyUnits,
        dead_lettered_at: expect.any(String),
      },
    ]);
    expect(usage).toMatchObject(expectedUsage(2, 0));
    expect(charges.data.map((c) => c.idempotency_key).sort()).toEqual([key, good.idempotency_key].sort());
  });

  it('when one batch message holds good and bad records, then each bad record is dead-lettered by its place in the batch, the good ones are charged once, and a malformed batch is dead-lettered whole', async () => {
    const tenant = await createTenant();
    const marker = randomUUID();
    const good = [usageRecordFor(tenant), usageRecordFor(tenant)];
    const records: unknown[] = [
      good[0],
      { usage_id: `${marker}-shape`, tenant_id: tenant.tenant_id, units: 'one' },
      usageRecordFor(tenant, { usage_id: `${marker}-price`, pricing_version: `no-such-version-${marker}` }),
      good[1],
      // The ledger refuses it on every delivery: the message comes back until the record is dead-lettered.
      usageRecordFor(tenant, { usage_id: `${marker}-units`, units: 3_000_000_000 }),
    ];
    const malformedBatch = JSON.stringify({ version: 'v1', records: [], marker });
    const batch = await publishUsage(outboxBatchText(records.map((r) => JSON.stringify(r))));
    const malformed = await publishUsage(malformedBatch);

    const { consumer, usage } = await settledUsage(tenant, 2);
    const charges = await chargesOf(tenant);
    const letters = (await deadLetters())
      .filter((l) => l.payload.includes(marker))
      .sort((a, b) => a.stream_sequence - b.stream_sequence || (a.record_index ?? 0) - (b.record_index ?? 0))
      .map((l) => ({ ...l, payload: JSON.parse(l.payload) }));

    expect(consumer).toEqual(drainedConsumer);
    const fromBatch = (index: number, reason: unknown) => ({
      stream_sequence: batch.seq,
      record_index: index,
      subject: Subjects.memory.usageRecorded,
      reason,
      payload: records[index],
      dead_lettered_at: expect.any(String),
    });
    expect(letters).toEqual([
      fromBatch(1, expect.stringMatching(/schema/i)),
      fromBatch(2, expect.stringContaining(`no-such-version-${marker}`)),
      fromBatch(4, expect.stringMatching(/^the ledger refused the record: .*out of range for type integer/)),
      {
        stream_sequence: malformed.seq,
        subject: Subjects.memory.usageRecorded,
        reason: expect.stringMatching(/schema/i),
        payload: JSON.parse(malformedBatch),
        dead_lettered_at: expect.any(String),
      },
    ]);
    expect(usage).toMatchObject(expectedUsage(2, 0));
    expect(charges.data.map((c) => c.idempotency_key).sort()).toEqual(
      good.map((r) => r?.idempotency_key).sort(),
    );
  });
});
