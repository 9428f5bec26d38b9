import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { controlSteps, suffix, TIMESTAMP as timestamp } from '../support/control.js';
import { eventually } from '../support/eventually.js';
import { uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';
import { type ReceivedWebhook, useReceiver, WEBHOOK_ENDPOINTS } from '../support/webhooks.js';

// Three retries 200 ms apart: four attempts in all, so a failing endpoint is given up on in a second.
const t = useStack({ webhooksEnv: { WEBHOOKS_RETRY_SCHEDULE_MS: '200,200,200' } });
const { tenantWithSession } = controlSteps(t);
const receiver = useReceiver();

/** A tenant with consent, its owner's session, and an endpoint at a path of the receiver of its own. */
async function tenantWithEndpoint(body: Record<string, unknown> = {}) {
  const tenant = await tenantWithSession({ consent: true });
  const path = `/hooks/${suffix()}`;
  const created = await t.api.post(WEBHOOK_ENDPOINTS, {
    key: tenant.session,
    body: { url: `${receiver.url}${path}`, events: ['memory.retained'], ...body },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { tenant, path, endpoint: created.body as { id: string; secret: string } };
}

/** Wait until the receiver has had `count` requests at `path`. */
const received = (path: string, count: number) =>
  eventually(() => {
    expect(receiver.at(path)).toHaveLength(count);
    return receiver.at(path);
  });

/** The endpoint's delivery log once its newest delivery has reached `status`. */
const deliveryLog = (session: string, endpointId: string, status: string) =>
  eventually(async () => {
    const res = await t.api.get(`${WEBHOOK_ENDPOINTS}/${endpointId}/deliveries`, { key: session });
    expect(res.status).toBe(200);
    expect(res.body.data[0]?.status).toBe(status);
    return res;
  });

/** The library's own check, as a receiver runs it: throws unless a signature matches. */
const verify = (secret: string, request: ReceivedWebhook) =>
  new Webhook(secret).verify(request.body, request.headers as Record<string, string>);

async function writeOne(apiKey: string, text = `webhook note ${suffix()}`) {
  const body = writeBody(uniqueNamespace('hooks'), text);
  const res = await t.api.write(apiKey, body, uniqueKey());
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await t.stack.memory.flushOutbox();
  return { res, body, text };
}

describe('memory.retained delivered to a registered endpoint', () => {
  it('when a memory is retained, then the receiver gets it signed by the library, with ids and state and no text, and the log shows one 200', async () => {
    const { tenant, path, endpoint } = await tenantWithEndpoint();

    const { res: written, body, text } = await writeOne(tenant.api_key);
    const [request] = await received(path, 1);
    const log = await deliveryLog(tenant.session, endpoint.id, 'succeeded');

    if (!request) throw new Error('no request');
    expect(verify(endpoint.secret, request)).toEqual({
      type: 'memory.retained',
      timestamp,
      data: {
        memory_id: written.body.memory_id,
        event_id: body.event.event_id,
        namespace: body.namespace,
        user_id: tenant.user_id,
        request_id: written.body.request_id,
        state: 'retained',
      },
    });
    expect(request.body).not.toContain(text);
    expect(request.headers).toMatchObject({
      'webhook-id': expect.stringMatching(/^msg_/),
      'webhook-timestamp': expect.stringMatching(/^\d+$/),
      'content-type': 'application/json',
    });
    expect(log.body).toMatchObject({
      data: [
        {
          message_id: request.headers['webhook-id'],
          event_type: 'memory.retained',
          status: 'succeeded',
          next_attempt_at: null,
          created_at: timestamp,
          attempts: [
            { attempted_at: timestamp, status_code: 200, latency_ms: expect.any(Number), error: null },
          ],
        },
      ],
      next_cursor: null,
    });
  });

  it('when an endpoint is registered with a URL not in its parsed form, then the stored URL is the one called', async () => {
    const tenant = await tenantWithSession({ consent: true });
    const path = `/hooks/${suffix()}`;
    const sent = `${receiver.url.replace('http://', 'HTTP://')}/detour/..${path}`;

    const created = await t.api.post(WEBHOOK_ENDPOINTS, {
      key: tenant.session,
      body: { url: sent, events: ['memory.retained'] },
    });
    await writeOne(tenant.api_key);
    const [request] = await received(path, 1);

    expect(created).toMatchObject({ status: 201, body: { url: `${receiver.url}${path}` } });
    expect(request).toMatchObject({ path });
    expect(receiver.at(`/detour/..${path}`)).toEqual([]);
  });

  it('when the endpoint opted in to text, then the payload also carries the memory text', async () => {
    const { tenant, path, endpoint } = await tenantWithEndpoint({ include_text: true });

    const { res: written, text } = await writeOne(tenant.api_key);
    const [request] = await received(path, 1);

    if (!request) throw new Error('no request');
    expect(verify(endpoint.secret, request)).toMatchObject({
      type: 'memory.retained',
      data: { memory_id: written.body.memory_id, state: 'retained', text },
    });
  });

  it('when a request is signed with another secret, then the library refuses it', async () => {
    const { tenant, path } = await tenantWithEndpoint();
    const other = await tenantWithEndpoint();

    await writeOne(tenant.api_key);
    const [request] = await received(path, 1);

    if (!request) throw new Error('no request');
    expect(() => verify(other.endpoint.secret, request)).toThrow(/signature/i);
  });

  it('when the receiver answers 500 and then 200, then it is sent again with the same webhook-id and the log shows both attempts', async () => {
    const { tenant, path, endpoint } = await tenantWithEndpoint();
    receiver.answer(path, 500);

    await writeOne(tenant.api_key);
    const [first, second] = await received(path, 2);
    const log = await deliveryLog(tenant.session, endpoint.id, 'succeeded');

    if (!first || !second) throw new Error('no requests');
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(verify(endpoint.secret, second)).toEqual(verify(endpoint.secret, first));
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0].attempts).toMatchObject([
      { status_code: 500, error: null },
      { status_code: 200, error: null },
    ]);
  });

  it('when every attempt fails, then the delivery fails, the endpoint is disabled with the reason, and a redeliver after enabling it is delivered', async () => {
    const { tenant, path, endpoint } = await tenantWithEndpoint();
    const endpointPath = `${WEBHOOK_ENDPOINTS}/${endpoint.id}`;
    receiver.answer(path, 500, 500, 500, 500);

    await writeOne(tenant.api_key);
    const failed = await deliveryLog(tenant.session, endpoint.id, 'failed');
    const disabled = await t.api.get(endpointPath, { key: tenant.session });
    const delivery = failed.body.data[0];
    const refused = await t.api.post(`${endpointPath}/deliveries/${delivery.id}/redeliver`, {
      key: tenant.session,
    });
    const enabled = await t.api.patch(endpointPath, { key: tenant.session, body: { enabled: true } });
    const redelivered = await t.api.post(`${endpointPath}/deliveries/${delivery.id}/redeliver`, {
      key: tenant.session,
    });
    await received(path, 5);
    const after = await deliveryLog(tenant.session, endpoint.id, 'succeeded');

    expect(failed.body.data[0].attempts.map((a: { status_code: number }) => a.status_code)).toEqual([
      500, 500, 500, 500,
    ]);
    expect(disabled).toMatchObject({
      status: 200,
      body: {
        enabled: false,
        disabled_reason: `delivery ${delivery.id} failed 4 attempts over 600 ms; last: HTTP 500`,
      },
    });
    expect(refused).toMatchObject({ status: 412, body: { details: { code: 'precondition_failed' } } });
    expect(enabled).toMatchObject({ status: 200, body: { enabled: true, disabled_reason: null } });
    expect(redelivered).toMatchObject({ status: 202, body: { id: delivery.id, status: 'pending' } });
    expect(after.body.data[0].attempts).toHaveLength(5);
    expect(after.body.data[0].attempts[4]).toMatchObject({ status_code: 200 });
  });

  it('when the endpoint asked for other events, or another tenant writes, then nothing is delivered to it', async () => {
    const { tenant, path, endpoint } = await tenantWithEndpoint({ events: ['charge.voided'] });
    const other = await tenantWithEndpoint();

    await writeOne(tenant.api_key);
    await writeOne(other.tenant.api_key);
    await received(other.path, 1);

    expect(receiver.at(path)).toHaveLength(0);
    const log = await t.api.get(`${WEBHOOK_ENDPOINTS}/${endpoint.id}/deliveries`, { key: tenant.session });
    expect(log.body.data).toEqual([]);
  });

  it('when the secret has been rotated, then deliveries verify with the new secret and, for the overlap, the old one', async () => {
    const { tenant, path, endpoint } = await tenantWithEndpoint();
    const rotated = await t.api.post(`${WEBHOOK_ENDPOINTS}/${endpoint.id}/rotate-secret`, {
      key: tenant.session,
    });

    await writeOne(tenant.api_key);
    const [request] = await received(path, 1);

    if (!request) throw new Error('no request');
    expect(request.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verify(rotated.body.secret, request)).toMatchObject({ type: 'memory.retained' });
    expect(verify(endpoint.secret, request)).toMatchObject({ type: 'memory.retained' });
  });

  it('when the webhooks service is stopped while memories are retained, then each is delivered once it is back', async () => {
    const { tenant, path } = await tenantWithEndpoint();

    await t.stack.stopWebhooks();
    try {
      await writeOne(tenant.api_key);
      await writeOne(tenant.api_key);
    } finally {
      await t.stack.startWebhooks();
    }
    const requests = await received(path, 2);

    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(2);
  });
});

describe('GET /api/v1/control/webhook-endpoints/{id}/deliveries', () => {
  it('when there are more deliveries than the limit, then pages follow the cursor newest first', async () => {
    const { tenant, path, endpoint } = await tenantWithEndpoint();
    for (let i = 0; i < 3; i++) await writeOne(tenant.api_key);
    await received(path, 3);

    const url = `${WEBHOOK_ENDPOINTS}/${endpoint.id}/deliveries`;
    const first = await t.api.get(url, { key: tenant.session, query: { limit: '2' } });
    const second = await t.api.get(url, {
      key: tenant.session,
      query: { limit: '2', cursor: first.body.next_cursor },
    });
    const bad = await t.api.get(url, { key: tenant.session, query: { cursor: 'not-a-cursor' } });

    expect(first.body.data).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    expect(second.body).toMatchObject({ data: [expect.any(Object)], next_cursor: null });
    const ids = [...first.body.data, ...second.body.data].map((d: { id: string }) => d.id);
    expect(new Set(ids).size).toBe(3);
    expect(bad).toMatchObject({ status: 400, body: { details: { code: 'validation_failed' } } });
  });
});

describe('namespace.deleted delivered to a registered endpoint', () => {
  it('when a namespace with memories is deleted, then the endpoint gets one namespace.deleted with the job and its count, and no memory.retained', async () => {
    const { tenant, path, endpoint } = await tenantWithEndpoint({ events: ['namespace.deleted'] });
    const namespace = uniqueNamespace('gone');
    for (const text of ['first note', 'second note']) {
      expect((await t.api.write(tenant.api_key, writeBody(namespace, text), uniqueKey())).status).toBe(200);
    }

    const deleted = await t.api.deleteNamespace(tenant.api_key, namespace);
    expect(deleted.body.deletion).toMatchObject({ status: 'completed' });
    await t.stack.memory.flushOutbox();
    const [request] = await received(path, 1);

    if (!request) throw new Error('no request');
    expect(verify(endpoint.secret, request)).toEqual({
      type: 'namespace.deleted',
      timestamp,
      data: {
        deletion_id: deleted.body.deletion.id,
        namespace,
        records_deleted: 2,
        request_id: deleted.body.request_id,
        state: 'deleted',
      },
    });
    expect(request.body).not.toContain('first note');
  });

  it('when an empty namespace is deleted, then namespace.deleted says no records went', async () => {
    const { tenant, path, endpoint } = await tenantWithEndpoint({ events: ['namespace.deleted'] });
    const namespace = uniqueNamespace('empty');

    const deleted = await t.api.deleteNamespace(tenant.api_key, namespace);
    await t.stack.memory.flushOutbox();
    const [request] = await received(path, 1);

    if (!request) throw new Error('no request');
    expect(verify(endpoint.secret, request)).toMatchObject({
      type: 'namespace.deleted',
      data: { deletion_id: deleted.body.deletion.id, namespace, records_deleted: 0 },
    });
  });
});

describe('memory.deleted delivered to a registered endpoint', () => {
  it('when one memory is forgotten, then the endpoint gets one memory.deleted with its id and what is current again, never its text', async () => {
    const { tenant, path, endpoint } = await tenantWithEndpoint({ events: ['memory.deleted'] });
    const namespace = uniqueNamespace('forgotten');
    const old = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'Ines lives in Porto', { event_id: 'evt-porto' }),
      uniqueKey(),
    );
    const correction = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'Ines lives in Braga', { event_id: 'evt-braga', supersedes: ['evt-porto'] }),
      uniqueKey(),
    );
    expect([old.status, correction.status]).toEqual([200, 200]);

    const forgotten = await t.api.delete(`/v1/memories/${correction.body.memory_id}`, {
      key: tenant.api_key,
    });
    expect(forgotten.status).toBe(200);
    await t.stack.memory.flushOutbox();
    const [request] = await received(path, 1);

    if (!request) throw new Error('no request');
    expect(verify(endpoint.secret, request)).toEqual({
      type: 'memory.deleted',
      timestamp,
      data: {
        memory_id: correction.body.memory_id,
        namespace,
        reinstated: [old.body.memory_id],
        request_id: forgotten.body.request_id,
        state: 'deleted',
      },
    });
    expect(request.body).not.toContain('Braga');
  });
});
