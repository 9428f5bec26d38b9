import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { TextMemory, TextMemoryError, type WebhookDelivery } from '../../../libs/clients/sdk/src/index.js';
import { contractCheckedFetch } from '../support/checked-fetch.js';
import { controlSteps, suffix, TIMESTAMP as timestamp } from '../support/control.js';
import { eventually } from '../support/eventually.js';
import { createTenant, uniqueNamespace } from '../support/factories.js';
import { recordSecrets } from '../support/log-capture.js';
import { useStack } from '../support/stack.js';
import { type ReceivedWebhook, useReceiver } from '../support/webhooks.js';

// The SDK's `control.webhooks` against the real stack, with a receiver on 127.0.0.1 (the stack
// allows loopback). Retries 200 ms apart, so a failing endpoint is given up on within a second.
const t = useStack({ webhooksEnv: { WEBHOOKS_RETRY_SCHEDULE_MS: '200,200,200' } });
const { addUser } = controlSteps(t);
const receiver = useReceiver();
const checkedFetch = contractCheckedFetch(t);

const sdk = (options: { apiKey?: string; sessionToken?: string } = {}) =>
  new TextMemory({ baseUrl: t.stack.url, fetch: checkedFetch, backoffBaseMs: 10, ...options });

/** An owner's client (session and the tenant's key, consent granted so writes are retained). */
async function ownerSdk() {
  const tenant = await createTenant({ consent: true });
  const tm = sdk({ apiKey: tenant.api_key });
  await tm.control.sessions.login({ email: tenant.owner.email, password: tenant.owner.password });
  recordSecrets([tm.sessionToken]);
  return { tenant, tm };
}

async function endpointAtReceiver(tm: TextMemory, body: { include_text?: boolean } = {}) {
  const path = `/sdk/${suffix()}`;
  const endpoint = await tm.control.webhooks.create({
    url: `${receiver.url}${path}`,
    events: ['memory.retained'],
    description: 'sdk receiver',
    ...body,
  });
  recordSecrets([endpoint.secret]);
  return { path, endpoint };
}

const received = (path: string, count: number) =>
  eventually(() => {
    expect(receiver.at(path)).toHaveLength(count);
    return receiver.at(path);
  });

const verify = (secret: string, request: ReceivedWebhook | undefined) => {
  if (!request) throw new Error('no request');
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
};

async function collect(iterable: AsyncIterable<WebhookDelivery>) {
  const all: WebhookDelivery[] = [];
  for await (const delivery of iterable) all.push(delivery);
  return all;
}

const failure = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TextMemoryError);
  return error as TextMemoryError;
};

describe('SDK: control.webhooks endpoints', () => {
  it('when an owner creates, reads, changes, disables, enables and deletes an endpoint, then each call answers as the README says and the secret is only in the first answer', async () => {
    const { tm } = await ownerSdk();

    const created = await tm.control.webhooks.create({
      url: 'https://hooks.example.com/sdk',
      events: ['memory.retained', 'namespace.deleted'],
      description: 'orders',
    });
    recordSecrets([created.secret]);
    const listed = await tm.control.webhooks.list();
    const one = await tm.control.webhooks.get(created.id);
    const changed = await tm.control.webhooks.update(created.id, {
      events: ['memory.deleted'],
      include_text: true,
    });
    const disabled = await tm.control.webhooks.update(created.id, { enabled: false });
    const enabled = await tm.control.webhooks.update(created.id, { enabled: true });
    const deleted = await tm.control.webhooks.delete(created.id);
    const gone = await failure(tm.control.webhooks.get(created.id));

    const row = {
      id: created.id,
      url: 'https://hooks.example.com/sdk',
      description: 'orders',
      events: ['memory.retained', 'namespace.deleted'],
      include_text: false,
      enabled: true,
      disabled_reason: null,
      created_at: timestamp,
      updated_at: timestamp,
    };
    const view = { contract_version: 'v1', ...row };
    expect(created).toEqual({ ...view, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
    expect(listed).toEqual({ contract_version: 'v1', data: [row] });
    expect(one).toEqual(view);
    expect(JSON.stringify([listed, one, changed])).not.toContain(created.secret);
    expect(changed).toEqual({ ...view, events: ['memory.deleted'], include_text: true });
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: null });
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null });
    expect(deleted).toEqual({ contract_version: 'v1', id: created.id, deleted: true });
    expect(gone).toMatchObject({ status: 404, code: 'not_found', attempts: 1 });
    expect((await tm.control.webhooks.list()).data).toEqual([]);
  });

  it('when the URL is a private address or an event type is unknown, then a validation_failed error names the field and nothing is registered', async () => {
    const { tm } = await ownerSdk();

    const inward = await failure(
      tm.control.webhooks.create({ url: 'http://10.0.0.7/hook', events: ['memory.retained'] }),
    );
    const unknown = await failure(
      tm.control.webhooks.create({
        url: 'https://hooks.example.com/x',
        // A type the API does not know, as a caller without the SDK's types might send.
        events: ['memory.recalled' as 'memory.retained'],
      }),
    );

    expect(inward).toMatchObject({ status: 400, code: 'validation_failed', attempts: 1 });
    expect(inward.details?.fields?.map((f) => f.path)).toEqual(['url']);
    expect(unknown).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(unknown.details?.fields?.map((f) => f.path)).toEqual(['events.0']);
    expect((await tm.control.webhooks.list()).data).toEqual([]);
  });

  it('when a developer calls, then each call is a 403 permission_denied; another tenant’s endpoint is a 404', async () => {
    const { tenant, tm } = await ownerSdk();
    const { endpoint } = await endpointAtReceiver(tm);
    const developer = await addUser(tm.sessionToken as string, 'developer');
    const dev = sdk();
    await dev.control.sessions.login({ email: developer.email, password: developer.password });
    const other = await ownerSdk();

    const refused = await Promise.all([
      failure(dev.control.webhooks.list()),
      failure(dev.control.webhooks.get(endpoint.id)),
      failure(dev.control.webhooks.rotateSecret(endpoint.id)),
      failure(dev.control.webhooks.deliveriesPage(endpoint.id)),
    ]);
    const foreign = await Promise.all([
      failure(other.tm.control.webhooks.get(endpoint.id)),
      failure(other.tm.control.webhooks.delete(endpoint.id)),
      failure(other.tm.control.webhooks.redeliver(endpoint.id, randomUUID())),
    ]);

    for (const error of refused) expect(error).toMatchObject({ status: 403, code: 'permission_denied' });
    for (const error of foreign) expect(error).toMatchObject({ status: 404, code: 'not_found' });
    expect(tenant.tenant_id).not.toBe(other.tenant.tenant_id);
    expect(await tm.control.webhooks.get(endpoint.id)).toMatchObject({ id: endpoint.id, enabled: true });
  });
});

describe('SDK: control.webhooks deliveries', () => {
  it('when memories are retained, then the receiver gets them signed, deliveries() pages through the log, and redeliver sends one again with the same webhook-id', async () => {
    const { tm } = await ownerSdk();
    const { path, endpoint } = await endpointAtReceiver(tm);
    const namespace = uniqueNamespace('sdk-hooks');
    const written = [];
    for (const text of ['first hook note', 'second hook note', 'third hook note'])
      written.push(await tm.memory.write({ namespace, text }));
    await t.stack.memory.flushOutbox();
    const requests = await received(path, 3);
    const log = await eventually(async () => {
      const all = await collect(tm.control.webhooks.deliveries(endpoint.id, { limit: 2 }));
      expect(all.map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
      return all;
    });
    const firstPage = await tm.control.webhooks.deliveriesPage(endpoint.id, { limit: 2 });

    const oldest = log[2] as WebhookDelivery;
    const redelivered = await tm.control.webhooks.redeliver(endpoint.id, oldest.id);
    const again = await received(path, 4);
    const after = await eventually(async () => {
      const page = await tm.control.webhooks.deliveriesPage(endpoint.id);
      expect(page.data.find((d) => d.id === oldest.id)?.attempts).toHaveLength(2);
      return page;
    });

    const payloads = requests.map((r) => verify(endpoint.secret, r) as { data: { memory_id: string } });
    expect(payloads.map((p) => p.data.memory_id).sort()).toEqual(written.map((w) => w.memory_id).sort());
    expect(log).toHaveLength(3);
    expect(new Set(log.map((d) => d.message_id)).size).toBe(3);
    expect(log[0]).toEqual({
      id: expect.any(String),
      message_id: expect.stringMatching(/^msg_/),
      event_type: 'memory.retained',
      status: 'succeeded',
      next_attempt_at: null,
      created_at: timestamp,
      attempts: [{ attempted_at: timestamp, status_code: 200, latency_ms: expect.any(Number), error: null }],
    });
    expect(firstPage).toMatchObject({ contract_version: 'v1', next_cursor: expect.any(String) });
    expect(firstPage.data.map((d) => d.id)).toEqual(log.slice(0, 2).map((d) => d.id));
    expect(redelivered).toMatchObject({ contract_version: 'v1', id: oldest.id, status: 'pending' });
    expect(again[3]?.headers['webhook-id']).toBe(oldest.message_id);
    expect(verify(endpoint.secret, again[3])).toEqual(
      verify(
        endpoint.secret,
        requests.find((r) => r.headers['webhook-id'] === oldest.message_id),
      ),
    );
    expect(after.data.find((d) => d.id === oldest.id)).toMatchObject({
      status: 'succeeded',
      attempts: [{ status_code: 200 }, { status_code: 200 }],
    });
  });

  it('when the secret is rotated, then the next delivery verifies with the new secret and, for the overlap, the old one', async () => {
    const { tm } = await ownerSdk();
    const { path, endpoint } = await endpointAtReceiver(tm);

    const rotated = await tm.control.webhooks.rotateSecret(endpoint.id);
    recordSecrets([rotated.secret]);
    await tm.memory.write({ namespace: uniqueNamespace('sdk-rotate'), text: 'after the rotation' });
    await t.stack.memory.flushOutbox();
    const [request] = await received(path, 1);

    expect(rotated).toEqual({
      contract_version: 'v1',
      id: endpoint.id,
      secret: expect.stringMatching(/^whsec_/),
      previous_secret_expires_at: timestamp,
    });
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(verify(rotated.secret, request)).toMatchObject({ type: 'memory.retained' });
    expect(verify(endpoint.secret, request)).toMatchObject({ type: 'memory.retained' });
  });

  it('when every attempt fails, then the endpoint is disabled with the reason, redeliver is a 412 until it is enabled again, and then it is delivered', async () => {
    const { tm } = await ownerSdk();
    const { path, endpoint } = await endpointAtReceiver(tm);
    receiver.answer(path, 500, 500, 500, 500);

    await tm.memory.write({ namespace: uniqueNamespace('sdk-fail'), text: 'never accepted' });
    await t.stack.memory.flushOutbox();
    const [failed] = await eventually(async () => {
      const page = await tm.control.webhooks.deliveriesPage(endpoint.id);
      expect(page.data.map((d) => d.status)).toEqual(['failed']);
      return page.data;
    });
    const disabled = await tm.control.webhooks.get(endpoint.id);
    const refused = await failure(tm.control.webhooks.redeliver(endpoint.id, failed?.id as string));
    const enabled = await tm.control.webhooks.update(endpoint.id, { enabled: true });
    const redelivered = await tm.control.webhooks.redeliver(endpoint.id, failed?.id as string);
    await received(path, 5);

    expect(failed?.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 500]);
    expect(disabled).toMatchObject({
      enabled: false,
      disabled_reason: expect.stringMatching(new RegExp(`^delivery ${failed?.id} failed 4 attempts`)),
    });
    expect(refused).toMatchObject({ status: 412, code: 'precondition_failed', attempts: 1 });
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null });
    expect(redelivered).toMatchObject({ id: failed?.id, status: 'pending' });
    await eventually(async () => {
      const [delivery] = (await tm.control.webhooks.deliveriesPage(endpoint.id)).data;
      expect(delivery).toMatchObject({ status: 'succeeded' });
      expect(delivery?.attempts).toHaveLength(5);
    });
  });
});
