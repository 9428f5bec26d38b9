import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingSteps, CHARGES, type Charge, usd, WRITE_MICRO_USD } from '../support/billing.js';
import { controlSteps, suffix, TIMESTAMP as timestamp } from '../support/control.js';
import { eventually } from '../support/eventually.js';
import { recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { importSteps } from '../support/imports.js';
import { followRestore, handMadeExport, restore } from '../support/restores.js';
import { useStack } from '../support/stack.js';
import { type StubHub, startStubHub } from '../support/stub-hub.js';
import { type ReceivedWebhook, useReceiver, WEBHOOK_ENDPOINTS } from '../support/webhooks.js';

// The events other services own (template, telemetry, billing), delivered like memory's:
// committed with the change to the owner's outbox, relayed to its stream, queued by the webhooks service.

let hub: StubHub;
beforeAll(async () => {
  hub = await startStubHub();
});
afterAll(() => hub?.close());

const t = useStack({
  templateEnv: () => ({ ...hub.env, IMPORT_POLL_MS: '200', HUB_RETRIES: '0' }),
  telemetryEnv: {
    // The watch looks every 300 ms. An error rate of a fifth is a warning; critical is out of reach
    // while a tenant has any accepted request, so a raise here is always one warning, never escalated.
    ANOMALY_WATCH_INTERVAL_MS: '300',
    ANOMALY_ERROR_RATE_WARNING: '0.2',
    ANOMALY_ERROR_RATE_CRITICAL: '0.99',
    ANOMALY_MIN_REQUESTS: '10',
    // far above any latency of this stack: no p95 anomaly on a loaded machine
    ANOMALY_P95_LATENCY_MS_WARNING: '60000',
    ANOMALY_P95_LATENCY_MS_CRITICAL: '120000',
  },
  // Retries 200 ms apart, so a receiver's 500 is followed by the next attempt at once.
  webhooksEnv: { WEBHOOKS_RETRY_SCHEDULE_MS: '200,200,200' },
});
const { tenantWithSession } = controlSteps(t);
const { charges } = billingSteps(t);
const { upload, runToCompletion } = importSteps(t);
const receiver = useReceiver();

const NEW_EVENTS = ['import.completed', 'import.failed', 'anomaly.raised', 'charge.voided'];
const messageId = expect.stringMatching(/^msg_[0-9a-f-]{36}$/);

type Tenant = Awaited<ReturnType<typeof tenantWithSession>>;

/** An endpoint of `tenant` for `events`, at a path of the receiver of its own. */
async function endpointFor(tenant: Tenant, events: string[]) {
  const path = `/hooks/${suffix()}`;
  const created = await t.api.post(WEBHOOK_ENDPOINTS, {
    key: tenant.session,
    body: { url: `${receiver.url}${path}`, events },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { path, id: created.body.id as string, secret: created.body.secret as string };
}

/** Wait until the receiver has had `count` requests at `path`. */
const received = (path: string, count: number) =>
  eventually(
    () => {
      expect(receiver.at(path)).toHaveLength(count);
      return receiver.at(path);
    },
    { timeout: 30_000 },
  );

/** The library's own check, as a receiver runs it: throws unless a signature matches. */
const verify = (secret: string, request: ReceivedWebhook | undefined) => {
  if (!request) throw new Error('no request');
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
};

const deliveries = async (tenant: Tenant, endpointId: string) => {
  const res = await t.api.get(`${WEBHOOK_ENDPOINTS}/${endpointId}/deliveries`, { key: tenant.session });
  expect(res.status).toBe(200);
  return res.body.data as Array<{ event_type: string; message_id: string; status: string }>;
};

/** A CSV import of three rows, one malformed, run to its end: two retained, one failed. */
async function completedImport(tenant: Tenant) {
  const namespace = uniqueNamespace('hook-import');
  const created = await upload(
    tenant.api_key,
    { format: '{name} studies {topic}', namespace },
    'name,topic\nAda,math\nBoris,art\nonly-one-value\n',
    'people.csv',
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  expect((await t.api.post(`/v1/imports/${id}/start`, { key: tenant.api_key })).status).toBe(202);
  const { job } = await runToCompletion(tenant.api_key, id);
  expect(job).toMatchObject({ state: 'completed', total: 3, retained: 2, failed: 1 });
  return { id, namespace, requestId: created.headers['x-request-id'] as string };
}

/** A restore of two hand-made records into a new namespace, followed to its end. */
async function completedRestore(tenant: Tenant) {
  const namespace = uniqueNamespace('hook-restore');
  const file = handMadeExport(namespace, [
    { event_id: 'evt-1', text: 'Restored note one' },
    { event_id: 'evt-2', text: 'Restored note two' },
  ]);
  const res = await restore(t.api, tenant.api_key, file);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  await followRestore(t.api, tenant.api_key, res.body.id);
  return { id: res.body.id as string, namespace, requestId: res.headers['x-request-id'] as string };
}

/** One write, its charge once billing has it, and that charge voided with `reason`. */
async function voidedCharge(tenant: Tenant, reason: string) {
  const written = await t.api.write(
    tenant.api_key,
    writeBody(uniqueNamespace('hook-charge'), 'a note'),
    uniqueKey(),
  );
  expect(written.status, JSON.stringify(written.body)).toBe(200);
  await t.stack.memory.flushOutbox();
  const charge = await eventually(async () => {
    const list = await charges(tenant.session);
    const found = (list.body.data as Charge[]).find((c) => c.request_id === written.body.request_id);
    expect(found).toBeDefined();
    return found as Charge;
  });
  const voided = await t.api.post(`${CHARGES}/${charge.id}/void`, { key: tenant.session, body: { reason } });
  expect(voided).toMatchObject({ status: 200, body: { id: charge.id, state: 'void' } });
  return { charge, requestId: written.body.request_id as string };
}

describe('import.completed and import.failed delivered to a registered endpoint', () => {
  it('when an import completes, then import.completed carries the job, its namespace and its counts, never a row', async () => {
    const tenant = await tenantWithSession({ consent: true });
    const endpoint = await endpointFor(tenant, ['import.completed']);

    const job = await completedImport(tenant);
    const [request] = await received(endpoint.path, 1);

    expect(verify(endpoint.secret, request)).toEqual({
      type: 'import.completed',
      timestamp,
      data: {
        import_id: job.id,
        kind: 'import',
        namespace: job.namespace,
        total: 3,
        retained: 2,
        already_present: 0,
        failed: 1,
        request_id: job.requestId,
        state: 'completed',
      },
    });
    expect(request?.headers['webhook-id']).toEqual(messageId);
    expect(request?.body).not.toContain('Ada');
    expect(request?.body).not.toContain('only-one-value');
  });

  it('when a restore completes, then import.completed says kind restore, with the records written', async () => {
    const tenant = await tenantWithSession({ consent: true });
    const endpoint = await endpointFor(tenant, ['import.completed']);

    const job = await completedRestore(tenant);
    const [request] = await received(endpoint.path, 1);

    expect(verify(endpoint.secret, request)).toEqual({
      type: 'import.completed',
      timestamp,
      data: {
        import_id: job.id,
        kind: 'restore',
        namespace: job.namespace,
        total: 2,
        retained: 2,
        already_present: 0,
        failed: 0,
        request_id: job.requestId,
        state: 'completed',
      },
    });
    expect(request?.body).not.toContain('Restored note');
  });

  it('when a dataset import fails (the dataset changed on the hub), then import.failed carries the job and the error code, not its message', async () => {
    const tenant = await tenantWithSession({ consent: true });
    const endpoint = await endpointFor(tenant, ['import.failed', 'import.completed']);
    const dataset = {
      id: `stub-org/hooks-${suffix()}`,
      sha: randomBytes(20).toString('hex'),
      configs: { default: { train: [{ name: 'Ada' }, { name: 'Boris' }, { name: 'Chen' }] } },
      columns: ['name'],
    };
    hub.add(dataset);
    const namespace = uniqueNamespace('hook-dataset');
    const created = await t.api.post('/v1/imports', {
      key: tenant.api_key,
      body: { dataset: dataset.id, split: 'train', format: '{name}', namespace },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    dataset.sha = randomBytes(20).toString('hex'); // a new commit before the job reads a row

    await t.api.post(`/v1/imports/${id}/start`, { key: tenant.api_key });
    const { job } = await runToCompletion(tenant.api_key, id);
    const [request] = await received(endpoint.path, 1);

    expect(job).toMatchObject({ state: 'failed', error: { code: 'dataset_revision_changed' } });
    expect(verify(endpoint.secret, request)).toEqual({
      type: 'import.failed',
      timestamp,
      data: {
        import_id: id,
        kind: 'import',
        namespace,
        total: 3,
        retained: 0,
        already_present: 0,
        failed: 0,
        error_code: 'dataset_revision_changed',
        request_id: created.headers['x-request-id'],
        state: 'failed',
      },
    });
    expect(request?.body).not.toContain(dataset.id);
  });
});

describe('anomaly.raised delivered to a registered endpoint', () => {
  it('when a tenant’s error rate crosses the warning threshold, then one anomaly.raised names the signal and the threshold', async () => {
    const tenant = await tenantWithSession();
    const endpoint = await endpointFor(tenant, ['anomaly.raised']);
    const namespace = uniqueNamespace('hook-anomaly');

    // Three answered recalls, so the rate stays below critical (0.99) however the watch's passes fall,
    // then invalid ones (top_k 0): 400 validation_failed, each a failed request of the tenant's.
    for (let i = 0; i < 3; i++) {
      expect((await t.api.recall(tenant.api_key, recallBody(namespace, 'cue'))).status).toBe(200);
    }
    for (let i = 0; i < 12; i++) {
      const res = await t.api.recall(tenant.api_key, recallBody(namespace, 'cue', { top_k: 0 }));
      expect(res.status).toBe(400);
    }
    const [request] = await received(endpoint.path, 1);

    const event = verify(endpoint.secret, request) as { data: { observed: number } };
    expect(event).toEqual({
      type: 'anomaly.raised',
      timestamp,
      data: {
        anomaly_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'error_rate',
        severity: 'warning',
        observed: expect.any(Number),
        threshold: 0.2,
        unit: 'ratio',
        window_minutes: 15,
        state: 'raised',
      },
    });
    expect(event.data.observed).toBeGreaterThanOrEqual(0.2);
    expect(await deliveries(tenant, endpoint.id)).toMatchObject([
      { event_type: 'anomaly.raised', message_id: request?.headers['webhook-id'] },
    ]);
  });
});

describe('charge.voided delivered to a registered endpoint', () => {
  it('when a charge is voided, then charge.voided carries the charge, its amount, who and why, with one webhook-id across a retry', async () => {
    const tenant = await tenantWithSession({ consent: true });
    const endpoint = await endpointFor(tenant, ['charge.voided']);
    receiver.answer(endpoint.path, 500);

    const { charge, requestId } = await voidedCharge(tenant, 'refund: duplicate write');
    const [first, second] = await received(endpoint.path, 2);

    expect(verify(endpoint.secret, second)).toEqual({
      type: 'charge.voided',
      timestamp,
      data: {
        charge_id: charge.id,
        operation: 'memory.write',
        units: 1,
        amount_usd: usd(WRITE_MICRO_USD),
        previous_state: 'recorded',
        reason: 'refund: duplicate write',
        actor_user_id: tenant.user_id,
        request_id: requestId,
        state: 'void',
      },
    });
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(verify(endpoint.secret, first)).toEqual(verify(endpoint.secret, second));
  });

  it('when a void charge is voided again, then no second charge.voided', async () => {
    const tenant = await tenantWithSession({ consent: true });
    const endpoint = await endpointFor(tenant, ['charge.voided', 'import.completed']);

    const { charge } = await voidedCharge(tenant, 'first');
    const again = await t.api.post(`${CHARGES}/${charge.id}/void`, {
      key: tenant.session,
      body: { reason: 'second' },
    });
    expect(again).toMatchObject({ status: 200, body: { state: 'void' } });
    // A later event of the same endpoint: once it is there, a second void's delivery would be too.
    await completedRestore(tenant);
    const requests = await received(endpoint.path, 2);

    expect(requests.map((r) => (verify(endpoint.secret, r) as { type: string }).type).sort()).toEqual([
      'charge.voided',
      'import.completed',
    ]);
  });
});

describe('events of one tenant reach only its subscribed endpoints', () => {
  it('when a tenant voids a charge and restores, then another tenant’s endpoint for every type and its own endpoint for another type get nothing', async () => {
    const tenant = await tenantWithSession({ consent: true });
    const other = await tenantWithSession({ consent: true });
    const subscribed = await endpointFor(tenant, NEW_EVENTS);
    const otherType = await endpointFor(tenant, ['memory.deleted']);
    const otherTenant = await endpointFor(other, [...NEW_EVENTS, 'memory.retained']);

    await voidedCharge(tenant, 'not theirs');
    await completedRestore(tenant);
    const requests = await received(subscribed.path, 2);

    expect(requests.map((r) => (verify(subscribed.secret, r) as { type: string }).type).sort()).toEqual([
      'charge.voided',
      'import.completed',
    ]);
    expect(receiver.at(otherType.path)).toEqual([]);
    expect(receiver.at(otherTenant.path)).toEqual([]);
    expect(await deliveries(tenant, otherType.id)).toEqual([]);
    expect(await deliveries(other, otherTenant.id)).toEqual([]);
  });
});
