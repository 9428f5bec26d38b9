import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { type Anomaly, type RequestEvent, Streams, Subjects } from '@tm/contracts';
import { prom } from '@tm/kit';
import { describe, expect, it } from 'vitest';
import { publish, record } from '../support/crafted-records.js';
import { EVENTUALLY } from '../support/eventually.js';
import { createTenant } from '../support/factories.js';
import { stackEnv, useStack } from '../support/stack.js';
import { eventsFor, telemetryDbRows } from '../support/telemetry.js';

const t = useStack();

const ANOMALIES = '/api/v1/infrastructure/anomalies';

/** What the event listing shows of a record (RequestEvent): the record without its internal fields. */
function eventOf(r: ReturnType<typeof record>): RequestEvent {
  const { version, record_id, tenant_id, namespace_ref, ...event } = r;
  return event;
}

/** This process's count of dead-lettered request records of one kind (the telemetry service runs here). */
async function deadLettered(kind: string): Promise<number> {
  const metric = (await prom.register.getMetricsAsJSON()).find(
    (m) => m.name === 'tm_request_records_dead_lettered_total',
  );
  return metric?.values.find((v) => v.labels.kind === kind)?.value ?? 0;
}

/** Publish a batch as a gateway would, but with whatever records the test likes (no schema check). */
const publishRawBatch = (records: unknown[], msgID: string) =>
  publish(
    Subjects.gateway.requestRecorded,
    { version: 'v1', gateway_instance: `crafted-${randomUUID()}`, dropped: 0, records },
    msgID,
  );

const deadLetterRows = (letterIds: string[]) =>
  telemetryDbRows<{ letter_id: string; record_index: number | null; reason: string }>(
    'SELECT letter_id, record_index, reason FROM request_record_dead_letter WHERE letter_id = ANY($1) ORDER BY letter_id',
    [letterIds],
  );

describe('a batch of request records with one bad record', () => {
  it('when one record of three breaks its schema, then the other two are stored, it alone is dead-lettered, counted, and an anomaly for every tenant', async () => {
    const tenant = await createTenant();
    const good = [
      record(tenant.tenant_id, { latency_ms: 5, request_id: `good-1-${randomUUID()}` }),
      record(tenant.tenant_id, { latency_ms: 7, request_id: `good-2-${randomUUID()}` }),
    ];
    const bad = { ...record(tenant.tenant_id, { latency_ms: 6 }), outcome: 'exploded' };
    const msgID = `bad-record-${randomUUID()}`;
    const countedBefore = await deadLettered('invalid_record');

    await publishRawBatch([good[0], bad, good[1]], msgID);

    // The neighbours are in the tenant's history, exactly as sent; the bad record is not.
    const events = await eventsFor(
      t.api,
      tenant.api_key,
      good.map((r) => r.request_id),
    );
    expect(events).toEqual(expect.arrayContaining(good.map(eventOf)));
    expect(events.map((e) => e.request_id)).not.toContain(bad.request_id);
    // It is kept for an operator, with its place in the batch and what was wrong with it.
    expect(await deadLetterRows([`${msgID}#1`])).toEqual([
      { letter_id: `${msgID}#1`, record_index: 1, reason: expect.stringMatching(/^outcome: /) },
    ]);
    expect(await deadLettered('invalid_record')).toBe(countedBefore + 1);

    const other = await createTenant();
    const res = await t.api.get(ANOMALIES, { key: other.api_key, query: { window_minutes: '5' } });
    expect(res.status).toBe(200);
    const [signal] = (res.body.anomalies as Anomaly[]).filter(
      (a) => a.name === 'request_record_dead_letters',
    );
    const [inWindow] = await telemetryDbRows<{ n: number }>(
      'SELECT count(*)::int AS n FROM request_record_dead_letter WHERE dead_lettered_at >= $1 AND dead_lettered_at < $2',
      [res.body.window.from, res.body.window.to],
    );
    expect(signal).toEqual({
      name: 'request_record_dead_letters',
      severity: 'warning',
      observed: inWindow?.n,
      threshold: 1,
      unit: 'count',
      scope: 'deployment',
      window_minutes: 5,
      message: expect.stringContaining('could not store'),
    });
    expect(res.body.thresholds.request_record_dead_letters).toEqual({
      warning: 1,
      critical: 100,
      unit: 'count',
      scope: 'deployment',
    });
  });

  it('when the database refuses one record its schema let through, then the others are stored at once, and it is dead-lettered on its third delivery', async () => {
    const tenant = await createTenant();
    const good = record(tenant.tenant_id, { latency_ms: 2 });
    // A valid ISO 8601 time that PostgreSQL cannot hold (there is no year 0).
    const refused = record(tenant.tenant_id, { latency_ms: 2, occurred_at: '0000-01-01T00:00:00Z' });
    const msgID = `refused-${randomUUID()}`;
    const countedBefore = await deadLettered('refused_by_database');

    await publishRawBatch([refused, good], msgID);

    const events = await eventsFor(t.api, tenant.api_key, [good.request_id]);
    expect(events).toEqual([eventOf(good)]);
    await expect
      .poll(() => deadLetterRows([`${msgID}#0`]), EVENTUALLY)
      .toEqual([
        {
          letter_id: `${msgID}#0`,
          record_index: 0,
          reason: expect.stringMatching(/^the database refused the record: .*out of range/),
        },
      ]);
    expect(await deadLettered('refused_by_database')).toBe(countedBefore + 1);
    // Stored once, whatever the redeliveries.
    expect(
      await telemetryDbRows('SELECT request_id FROM request_record WHERE request_id = ANY($1)', [
        [good.request_id, refused.request_id],
      ]),
    ).toEqual([{ request_id: good.request_id }]);
  });

  it('when a message is not a batch at all, then it is one dead letter and the messages after it are stored', async () => {
    const tenant = await createTenant();
    const msgID = `not-a-batch-${randomUUID()}`;
    const after = record(tenant.tenant_id, { latency_ms: 3 });
    const countedBefore = await deadLettered('not_a_batch');

    await publish(Subjects.gateway.requestRecorded, { hello: 'world' }, msgID);
    await publishRawBatch([after], `after-${randomUUID()}`);

    const events = await eventsFor(t.api, tenant.api_key, [after.request_id]);
    expect(events).toEqual([eventOf(after)]);
    expect(await deadLetterRows([msgID])).toEqual([
      { letter_id: msgID, record_index: null, reason: expect.stringMatching(/^not a request record batch/) },
    ]);
    expect(await deadLettered('not_a_batch')).toBe(countedBefore + 1);
  });

  it('when an older gateway sends a record with a 300-character route, then it is stored with the route cut to 200', async () => {
    const tenant = await createTenant();
    const route = `/api/v1/control/api-keys/${'k'.repeat(275)}`;
    const long = { ...record(tenant.tenant_id, { latency_ms: 4 }), route };

    await publishRawBatch([long], `long-route-${randomUUID()}`);

    const events = await eventsFor(t.api, tenant.api_key, [long.request_id]);
    expect(events).toEqual([{ ...eventOf(long), route: `${route.slice(0, 199)}…` }]);
  });
});

describe('a request with a long URL', () => {
  it('when a request has a 300-character URL, then it is in the events under its route template, beside the request after it', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const path = `/api/v1/control/api-keys/${'k'.repeat(275)}`;
    const ids = { long: `long-url-${randomUUID()}`, next: `after-long-url-${randomUUID()}` };
    expect(path).toHaveLength(300);

    const long = await t.api.get(path, { key: session, headers: { 'X-Request-Id': ids.long } });
    const next = await t.api.get('/api/v1/control/api-keys', {
      key: session,
      headers: { 'X-Request-Id': ids.next },
    });

    expect(long).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
    expect(next.status).toBe(200);
    const events = await eventsFor(t.api, tenant.api_key, [ids.long, ids.next]);
    expect(events.find((e) => e.request_id === ids.long)).toEqual({
      request_id: ids.long,
      occurred_at: expect.any(String),
      key_id: null,
      user_id: tenant.user_id,
      method: 'GET',
      route: '/api/v1/control/api-keys/{id}',
      operation: 'control.api_keys.get',
      status: 404,
      outcome: 'failed',
      state: null,
      error_code: 'not_found',
      latency_ms: expect.any(Number),
      units: 0,
      billing_state: 'no_data',
      deployment_version: expect.any(String),
    });
  });
});

describe('the streams the services create', () => {
  it('when the stack has started, then every stream keeps at most 7 days and 1 GiB (the defaults)', async () => {
    const nc = await connect({ servers: stackEnv().natsUrl });
    try {
      const jsm = await jetstreamManager(nc);
      for (const stream of [Streams.gatewayRequests, Streams.memoryUsage, Streams.billingDeadLetters]) {
        const { config } = await jsm.streams.info(stream.name);
        expect({ name: config.name, max_age: config.max_age, max_bytes: config.max_bytes }).toEqual({
          name: stream.name,
          max_age: 168 * 3_600 * 1_000_000_000,
          max_bytes: 1024 * 1024 * 1024,
        });
      }
    } finally {
      await nc.close();
    }
  });
});
