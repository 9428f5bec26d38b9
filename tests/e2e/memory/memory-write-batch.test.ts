import { randomUUID } from 'node:crypto';
import { LIMITS, type RequestEvent } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { billingSteps, usd, WRITE_MICRO_USD } from '../support/billing.js';
import { followDeletion, holdJob } from '../support/deletions.js';
import { eventually } from '../support/eventually.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { recordsInNamespace, recordsWithEvent } from '../support/memory-db.js';
import { useSecondGateway, useStack } from '../support/stack.js';
import { eventsFor } from '../support/telemetry.js';
import { usageInStream } from '../support/usage-stream.js';

/**
 * Namespace deletions in batches of one record, answered 202 at once: a deletion of a few hundred
 * records stays in progress long enough to be held (holdJob) while a batch is sent.
 */
const t = useStack({
  breakerResetMs: 300,
  memoryEnv: { MEMORY_DELETE_BATCH_SIZE: '1', MEMORY_DELETE_WAIT_MS: '0' },
});
const { usage } = billingSteps(t);

const BATCH = '/api/v1/memory/write/batch';

type Item = { idempotency_key: string; event: ReturnType<typeof writeBody>['event'] };

/** One batch item: its own key and an event as /write takes it. */
const item = (text: string, event: Parameters<typeof writeBody>[2] = {}): Item => ({
  idempotency_key: uniqueKey(),
  event: writeBody('unused', text, event).event,
});

const batchBody = (namespace: string, items: unknown[]) => ({
  contract_version: 'v1',
  operation: 'memory.write_batch',
  namespace,
  items,
});

const sendBatch = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  t.api.post(BATCH, { key, body, headers });

const counts = (c: Partial<Record<'accepted' | 'replayed' | 'conflict' | 'invalid' | 'failed', number>>) => ({
  accepted: 0,
  replayed: 0,
  conflict: 0,
  invalid: 0,
  failed: 0,
  ...c,
});

/**
 * Publish memory's pending usage rows, then wait until billing's ledger holds `volume` charged writes
 * for the tenant (recalls are charged apart, under their own operation).
 */
async function billedWrites(key: string, volume: number) {
  await t.stack.memory.flushOutbox();
  return eventually(async () => {
    const res = await usage(key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.operations).toContainEqual(
      expect.objectContaining({
        operation: 'memory.write',
        requests: volume,
        units: volume,
        recorded_charge_usd: usd(volume * WRITE_MICRO_USD),
      }),
    );
    return res;
  });
}

/** The idempotency keys of the tenant's write usage records in the stream, one entry per record. */
const usageKeys = async (tenantId: string) =>
  (await usageInStream(tenantId))
    .filter((u) => u.operation === 'memory.write')
    .map((u) => u.idempotency_key)
    .sort();

describe('POST /api/v1/memory/write/batch', () => {
  it('when a batch mixes good, invalid, replayed and conflicting items, then each is answered as its own write and only the good ones are stored and billed, once', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const earlier = { key: uniqueKey(), body: writeBody(namespace, 'The boiler was serviced in March') };
    const taken = { key: uniqueKey(), body: writeBody(namespace, 'The original text under a taken key') };
    const first = await t.api.write(tenant.api_key, earlier.body, earlier.key);
    expect((await t.api.write(tenant.api_key, taken.body, taken.key)).status).toBe(200);
    const good = [
      item('Alice prefers green tea', { event_id: 'good-1' }),
      item('Bob takes the train on Mondays', { event_id: 'good-2' }),
    ];
    const invalid = item(' ', { event_id: 'invalid-1' });
    const items = [
      good[0],
      invalid,
      { idempotency_key: earlier.key, event: earlier.body.event },
      { idempotency_key: taken.key, event: { ...taken.body.event, content: { text: 'Another text' } } },
      good[1],
    ];
    const requestId = `batch-${randomUUID()}`;

    const res = await sendBatch(tenant.api_key, batchBody(namespace, items), { 'X-Request-Id': requestId });

    expect(res).toMatchObject({
      status: 200,
      body: {
        contract_version: 'v1',
        operation: 'memory.write_batch',
        state: 'retained',
        request_id: requestId,
        retryable: false,
        namespace,
        item_counts: { total: 5, ...counts({ accepted: 2, replayed: 1, conflict: 1, invalid: 1 }) },
        results: [
          {
            index: 0,
            status: 200,
            body: {
              contract_version: 'v1',
              operation: 'memory.write',
              state: 'retained',
              request_id: requestId,
              original_request_id: requestId,
              retryable: false,
              idempotency_key: good[0]?.idempotency_key,
              idempotency_outcome: 'Accepted',
              namespace,
              event_id: 'good-1',
              memory_id: expect.any(String),
              decision: { value: 'memorized', memorized: true },
              usage: { billing_state: 'billable', operation_units: 1 },
            },
          },
          {
            index: 1,
            status: 400,
            body: {
              contract_version: 'v1',
              error: expect.any(String),
              retryable: false,
              request_id: requestId,
              details: {
                code: 'validation_failed',
                request_id: requestId,
                fields: [{ path: 'items[1].event.content.text', message: expect.any(String) }],
              },
            },
          },
          {
            index: 2,
            status: 200,
            body: {
              idempotency_outcome: 'Replayed',
              memory_id: first.body.memory_id,
              original_request_id: first.body.request_id,
              request_id: requestId,
            },
          },
          {
            index: 3,
            status: 409,
            body: {
              retryable: false,
              idempotency_outcome: 'Conflict',
              request_id: requestId,
              details: { code: 'idempotency_conflict', request_id: requestId },
            },
          },
          {
            index: 4,
            status: 200,
            body: { idempotency_outcome: 'Accepted', event_id: 'good-2', memory_id: expect.any(String) },
          },
        ],
      },
    });
    expect(res.body.results).toHaveLength(5);
    // A refusal that never used the key names no idempotency outcome, as on /write.
    expect(res.body.results[1].body).not.toHaveProperty('idempotency_outcome');
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(4);
    expect(await recordsWithEvent(tenant.tenant_id, namespace, 'invalid-1')).toBe(0);
    const recalled = await t.api.recall(
      tenant.api_key,
      recallBody(namespace, 'green tea train text', { top_k: 10 }),
    );
    expect(recalled.body.related.map((r: { text: string }) => r.text).sort()).toEqual([
      'Alice prefers green tea',
      'Bob takes the train on Mondays',
      'The original text under a taken key',
    ]);
    await billedWrites(tenant.api_key, 4);
    expect(await usageKeys(tenant.tenant_id)).toEqual(
      [earlier.key, taken.key, good[0]?.idempotency_key, good[1]?.idempotency_key].sort(),
    );
  });

  it('when the same batch is sent again (its answer lost), then every item is Replayed, nothing is stored twice, it is billed once, and each batch has one request record with its counts', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const items = [item('First note of three'), item('Second note of three'), item('Third note of three')];
    const firstId = `batch-${randomUUID()}`;
    const againId = `batch-${randomUUID()}`;

    const first = await sendBatch(tenant.api_key, batchBody(namespace, items), { 'X-Request-Id': firstId });
    const again = await sendBatch(tenant.api_key, batchBody(namespace, items), { 'X-Request-Id': againId });

    expect(first).toMatchObject({
      status: 200,
      body: { item_counts: { total: 3, ...counts({ accepted: 3 }) } },
    });
    expect(again).toMatchObject({
      status: 200,
      body: {
        state: 'retained',
        request_id: againId,
        item_counts: { total: 3, ...counts({ replayed: 3 }) },
        results: items.map((it, index) => ({
          index,
          status: 200,
          body: {
            idempotency_key: it.idempotency_key,
            idempotency_outcome: 'Replayed',
            memory_id: first.body.results[index].body.memory_id,
            original_request_id: firstId,
            request_id: againId,
            usage: { billing_state: 'billable', operation_units: 1 },
          },
        })),
      },
    });
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(3);
    await billedWrites(tenant.api_key, 3);
    expect(await usageKeys(tenant.tenant_id)).toEqual(items.map((it) => it.idempotency_key).sort());

    const events = await eventsFor(t.api, tenant.api_key, [firstId, againId]);
    const recordsOf = (id: string) => events.filter((e: RequestEvent) => e.request_id === id);
    const batchRecord = {
      method: 'POST',
      route: '/api/v1/memory/write/batch',
      operation: 'memory.write_batch',
      status: 200,
      outcome: 'accepted',
      state: 'retained',
      error_code: null,
    };
    expect(recordsOf(firstId)).toEqual([
      expect.objectContaining({
        ...batchRecord,
        units: 3,
        billing_state: 'billable',
        item_counts: { total: 3, ...counts({ accepted: 3 }) },
      }),
    ]);
    expect(recordsOf(againId)).toEqual([
      expect.objectContaining({
        ...batchRecord,
        units: 0,
        billing_state: 'no_data',
        item_counts: { total: 3, ...counts({ replayed: 3 }) },
      }),
    ]);
  });

  it(`when a batch holds exactly ${LIMITS.writeBatchMaxItems} items, then every one is retained, in order`, async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const items = Array.from({ length: LIMITS.writeBatchMaxItems }, (_, i) =>
      item(`bulk note ${i}`, { event_id: `bulk-${i}` }),
    );

    const res = await sendBatch(tenant.api_key, batchBody(namespace, items));

    expect(res).toMatchObject({
      status: 200,
      body: {
        item_counts: { total: LIMITS.writeBatchMaxItems, ...counts({ accepted: LIMITS.writeBatchMaxItems }) },
      },
    });
    expect(
      res.body.results.map((r: { index: number; body: { event_id: string } }) => r.body.event_id),
    ).toEqual(items.map((it) => it.event.event_id));
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(LIMITS.writeBatchMaxItems);
  });

  it.each([
    [
      'more items than the limit',
      (namespace: string) =>
        batchBody(
          namespace,
          Array.from({ length: LIMITS.writeBatchMaxItems + 1 }, (_, i) => item(`one too many ${i}`)),
        ),
      [{ path: 'items', message: `items must hold at most ${LIMITS.writeBatchMaxItems} items` }],
    ],
    [
      'no items',
      (namespace: string) => batchBody(namespace, []),
      [{ path: 'items', message: 'items must hold at least one item' }],
    ],
    [
      'items that are not a list',
      (namespace: string) => ({ ...batchBody(namespace, []), items: { 0: item('not a list') } }),
      [{ path: 'items', message: 'items must be a list of items' }],
    ],
    [
      'another contract version',
      (namespace: string) => ({ ...batchBody(namespace, [item('v2 note')]), contract_version: 'v2' }),
      [{ path: 'contract_version', message: 'contract_version must be "v1"' }],
    ],
    [
      "the single write's operation",
      (namespace: string) => ({
        ...batchBody(namespace, [item('wrong operation')]),
        operation: 'memory.write',
      }),
      [{ path: 'operation', message: 'operation must be "memory.write_batch"' }],
    ],
    [
      'a bad namespace',
      (namespace: string) => batchBody(`-${namespace}`, [item('bad namespace')]),
      [{ path: 'namespace', message: expect.any(String) }],
    ],
    [
      'a tenant_id',
      (namespace: string) => ({ ...batchBody(namespace, [item('scope')]), tenant_id: 'someone-else' }),
      [{ path: 'tenant_id', message: expect.any(String) }],
    ],
  ])(
    'when the batch has %s, then one 400 for the whole batch and nothing is stored',
    async (_what, body, fields) => {
      const tenant = await createTenant();
      const namespace = uniqueNamespace();

      const res = await sendBatch(tenant.api_key, body(namespace));

      expect(res).toMatchObject({
        status: 400,
        body: { retryable: false, details: { code: 'validation_failed', fields } },
      });
      expect(res.body.details.fields).toHaveLength(fields.length);
      expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
    },
  );

  it('when the body is not JSON, or an Idempotency-Key header is sent, then 400 and nothing is stored', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();

    const notJson = await t.api.post(BATCH, {
      key: tenant.api_key,
      raw: { data: '{"contract_version":"v1",', contentType: 'application/json' },
    });
    const withHeader = await sendBatch(tenant.api_key, batchBody(namespace, [item('keyed batch')]), {
      'Idempotency-Key': uniqueKey(),
    });

    expect(notJson).toMatchObject({ status: 400, body: { details: { code: 'malformed_json' } } });
    expect(withHeader).toMatchObject({
      status: 400,
      body: { details: { code: 'validation_failed', fields: [{ path: 'Idempotency-Key' }] } },
    });
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
  });

  it('when the tenant has not granted consent, then each item is not_retained, nothing is stored and nothing billed', async () => {
    const tenant = await createTenant({ consent: false });
    const namespace = uniqueNamespace();

    const res = await sendBatch(
      tenant.api_key,
      batchBody(namespace, [item('no consent one'), item('no consent two')]),
    );

    expect(res).toMatchObject({
      status: 200,
      body: {
        state: 'not_retained',
        item_counts: { total: 2, ...counts({ accepted: 2 }) },
        results: [0, 1].map((index) => ({
          index,
          status: 200,
          body: {
            state: 'not_retained',
            memory_id: null,
            usage: { billing_state: 'no_data', operation_units: 0 },
          },
        })),
      },
    });
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
  });

  it("when another tenant sends the same batch (same keys, same events), then it is Accepted in its own tenant and neither recalls the other's records", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const namespace = uniqueNamespace();
    const items = [item('Carol keeps the spare key under the mat'), item('Dave parks in bay seven')];

    const fromA = await sendBatch(a.api_key, batchBody(namespace, items));
    const fromB = await sendBatch(b.api_key, batchBody(namespace, items));

    expect(fromA).toMatchObject({
      status: 200,
      body: { item_counts: { total: 2, ...counts({ accepted: 2 }) } },
    });
    expect(fromB).toMatchObject({
      status: 200,
      body: {
        item_counts: { total: 2, ...counts({ accepted: 2 }) },
        results: [0, 1].map((index) => ({
          index,
          status: 200,
          body: { idempotency_outcome: 'Accepted', original_request_id: fromB.body.request_id },
        })),
      },
    });
    const idsOf = (res: typeof fromA) =>
      res.body.results.map((r: { body: { memory_id: string } }) => r.body.memory_id).sort();
    for (const id of idsOf(fromA)) expect(idsOf(fromB)).not.toContain(id);
    const recalledBy = async (key: string) =>
      (await t.api.recall(key, recallBody(namespace, 'spare key bay seven', { top_k: 10 }))).body.related
        .map((r: { memory_id: string }) => r.memory_id)
        .sort();
    expect(await recalledBy(a.api_key)).toEqual(idsOf(fromA));
    expect(await recalledBy(b.api_key)).toEqual(idsOf(fromB));
    expect(await recordsInNamespace(a.tenant_id, namespace)).toBe(2);
    expect(await recordsInNamespace(b.tenant_id, namespace)).toBe(2);
  });
});

describe('POST /api/v1/memory/write/batch to a namespace being deleted', () => {
  it('then the whole batch is 409 namespace_being_deleted, retryable, and nothing of it is written', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    for (const part of [0, 1]) {
      const fill = Array.from({ length: LIMITS.writeBatchMaxItems }, (_, i) => item(`filler ${part}-${i}`));
      expect((await sendBatch(tenant.api_key, batchBody(namespace, fill))).status).toBe(200);
    }
    const deleting = await t.api.deleteNamespace(tenant.api_key, namespace);
    expect(deleting.status).toBe(202);
    const late = [item('too soon', { event_id: 'late-1' }), item('also too soon', { event_id: 'late-2' })];

    const release = await holdJob(deleting.body.deletion.id);
    let res: Awaited<ReturnType<typeof sendBatch>>;
    try {
      res = await sendBatch(tenant.api_key, batchBody(namespace, late));
      expect(await recordsWithEvent(tenant.tenant_id, namespace, 'late-1')).toBe(0);
      expect(await recordsWithEvent(tenant.tenant_id, namespace, 'late-2')).toBe(0);
    } finally {
      await release();
    }

    expect(res).toMatchObject({
      status: 409,
      headers: { 'retry-after': '1' },
      body: {
        retryable: true,
        idempotency_outcome: 'Retryable',
        details: { code: 'namespace_being_deleted' },
      },
    });
    await followDeletion(t.api, tenant.api_key, deleting.body.deletion.id);
    const after = await sendBatch(tenant.api_key, batchBody(namespace, late));
    expect(after).toMatchObject({ status: 200, body: { item_counts: { total: 2, accepted: 2 } } });
  });
});

describe('POST /api/v1/memory/write/batch against the rate limits', () => {
  // An instance with a small per-key limit (the counters are shared; the key is this test's own).
  const limited = useSecondGateway(t, { RATE_LIMIT_PER_KEY: '5', RATE_LIMIT_WINDOW_SECONDS: '3600' });

  it('when batches add up to more items than the key may write in its window, then the batch over it is 429 whole and nothing of it is stored', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const send = (items: Item[]) =>
      limited.api.post(BATCH, { key: tenant.api_key, body: batchBody(namespace, items) });

    const within = await send([
      item('limit one'),
      item('limit two'),
      item('limit three'),
      item('limit four'),
    ]);
    const over = await send([item('limit five'), item('limit six')]);

    expect(within).toMatchObject({ status: 200, body: { item_counts: { total: 4, accepted: 4 } } });
    expect(over).toMatchObject({
      status: 429,
      body: { retryable: true, idempotency_outcome: 'Retryable', details: { code: 'rate_limited' } },
    });
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(4);
  });
});

// Last in the file: it stops and restarts this file's memory service.
describe('POST /api/v1/memory/write/batch while the memory service is down', () => {
  it('then the whole batch is a retryable 503, and once memory is back the same batch completes: written items replay, the rest are written, each billed once', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const items = Array.from({ length: 6 }, (_, i) => item(`outage note ${i}`));
    // Half of the batch got through before the outage (as if an earlier attempt had been cut short).
    const before = await sendBatch(tenant.api_key, batchBody(namespace, items.slice(0, 3)));
    expect(before.status).toBe(200);

    await t.stack.stopMemory();
    let during: Awaited<ReturnType<typeof sendBatch>>;
    try {
      during = await sendBatch(tenant.api_key, batchBody(namespace, items));
      expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(3);
    } finally {
      await t.stack.startMemory();
    }
    const resent = await eventually(async () => {
      const res = await sendBatch(tenant.api_key, batchBody(namespace, items));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res;
    });

    expect(during).toMatchObject({
      status: 503,
      body: { retryable: true, idempotency_outcome: 'Retryable', details: { code: 'service_unavailable' } },
    });
    expect(Number(during.headers['retry-after'])).toBeGreaterThan(0);
    expect(resent.body).toMatchObject({
      state: 'retained',
      item_counts: { total: 6, ...counts({ accepted: 3, replayed: 3 }) },
    });
    expect(
      resent.body.results.map((r: { body: { idempotency_outcome: string } }) => r.body.idempotency_outcome),
    ).toEqual(['Replayed', 'Replayed', 'Replayed', 'Accepted', 'Accepted', 'Accepted']);
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(6);
    await billedWrites(tenant.api_key, 6);
    expect(await usageKeys(tenant.tenant_id)).toEqual(items.map((it) => it.idempotency_key).sort());
  });
});
