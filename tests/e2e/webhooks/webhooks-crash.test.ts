import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Consumers, QueueGroups, Streams, Subjects } from '@tm/contracts';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { controlSteps, suffix, TIMESTAMP as timestamp } from '../support/control.js';
import { eventually } from '../support/eventually.js';
import { uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { recordSecrets } from '../support/log-capture.js';
import { type ServiceProcess, startServiceProcess } from '../support/service-process.js';
import { useStack } from '../support/stack.js';
import { standInService } from '../support/stand-in-service.js';
import { outboxOf, type ReceivedWebhook, useReceiver, WEBHOOK_ENDPOINTS } from '../support/webhooks.js';

/**
 * At least once across a crash: the webhooks service as its own process (the stack's in-process one
 * is stopped), frozen (SIGSTOP) at a chosen step of a delivery, SIGKILLed there, and started again.
 * Where it is frozen is decided by what it is doing, never by a sleep: so each run kills it at the
 * same step. A claimed delivery comes back once its lease ends: twice WEBHOOKS_ATTEMPT_TIMEOUT_MS (2 s)
 * plus the service's 30 s margin, which is most of this file's time.
 */
const t = useStack();
const { tenantWithSession } = controlSteps(t);
const receiver = useReceiver();

/** Shared by every instance, as in a deployment: the endpoints' secrets are sealed with it. */
const SECRET_KEY = randomBytes(32).toString('base64url');
const LEASE_ENDS = 60_000;
const running: ServiceProcess[] = [];

beforeAll(async () => {
  recordSecrets([SECRET_KEY]);
  await t.stack.stopWebhooks();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.kill('SIGKILL')));
});

/** One webhooks instance as an OS process on this file's database and bus; one delivery at a time. */
async function startWebhooksProcess() {
  const instance = await startServiceProcess('webhooks', {
    WEBHOOKS_DATABASE_URL: t.stack.env.webhooksDbUrl,
    NATS_URL: t.stack.env.natsUrl,
    WEBHOOKS_SECRET_KEY: SECRET_KEY,
    WEBHOOKS_ALLOW_LOOPBACK: 'true',
    WEBHOOKS_POLL_INTERVAL_MS: '200',
    WEBHOOKS_ATTEMPT_TIMEOUT_MS: '2000',
    WEBHOOKS_CONCURRENCY: '1',
  });
  running.push(instance);
  return instance;
}

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

async function writeOne(apiKey: string) {
  const text = `crash note ${suffix()}`;
  const body = writeBody(uniqueNamespace('crash'), text);
  const res = await t.api.write(apiKey, body, uniqueKey());
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { res, body, text };
}

const verify = (secret: string, request: ReceivedWebhook) =>
  new Webhook(secret).verify(request.body, request.headers as Record<string, string>);

/** The endpoint's delivery log, once every delivery in it has succeeded. */
const succeededLog = (session: string, endpointId: string, count: number) =>
  eventually(async () => {
    const res = await t.api.get(`${WEBHOOK_ENDPOINTS}/${endpointId}/deliveries`, { key: session });
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { status: string }) => d.status)).toEqual(Array(count).fill('succeeded'));
    return res;
  });

/**
 * Wait until the webhooks consumer of memory's usage has no fetch outstanding on the server (a frozen
 * instance's last one has expired): what is published from then on waits in the stream, and the
 * instance's next fetch takes all of it in one batch, queued in one transaction.
 */
async function untilNoFetchOutstanding() {
  const nc = await connect({ servers: t.stack.env.natsUrl });
  try {
    const jsm = await jetstreamManager(nc);
    await eventually(async () => {
      const info = await jsm.consumers.info(Streams.memoryUsage.name, Consumers.webhooksMemoryUsage);
      expect(info.num_waiting).toBe(0);
    });
  } finally {
    await nc.close();
  }
}

describe('no webhook delivery lost when the webhooks service is killed', () => {
  it('when it is killed with deliveries committed to its outbox and none sent, then a new instance sends each with the webhook-id it was queued under, signed, and the log shows each succeeded', async () => {
    // Arrange: an endpoint that asked for text, so the first step of each attempt is reading the text
    // from memory (memory.v1.text.get). The instance is frozen while three memories are written.
    const first = await startWebhooksProcess();
    const { tenant, path, endpoint } = await tenantWithEndpoint({ include_text: true });
    first.signal('SIGSTOP');
    await untilNoFetchOutstanding();
    const writes = [
      await writeOne(tenant.api_key),
      await writeOne(tenant.api_key),
      await writeOne(tenant.api_key),
    ];
    await t.stack.memory.flushOutbox();
    // Memory stops; a stand-in takes its text reads, never answers, and freezes the instance on the
    // first: by then the three deliveries are committed, one is claimed (leased), none is sent.
    await t.stack.stopMemory();
    let textReads = 0;
    const textReader = await standInService(Subjects.memory.getText, QueueGroups.memory, () => {
      if (textReads++ === 0) first.signal('SIGSTOP');
      return undefined;
    });
    first.signal('SIGCONT');
    const queued = await eventually(async () => {
      expect(textReads).toBe(1);
      return outboxOf(endpoint.id);
    });

    // Act: the crash, then memory and a new instance.
    await first.kill('SIGKILL');
    await textReader.stop();
    await t.stack.startMemory();
    await startWebhooksProcess();
    const requests = await eventually(
      () => {
        expect(receiver.at(path)).toHaveLength(3);
        return receiver.at(path);
      },
      { timeout: LEASE_ENDS },
    );
    const log = await succeededLog(tenant.session, endpoint.id, 3);

    // Assert: in the outbox before the crash, nothing sent, nothing recorded.
    expect(queued).toEqual([
      { message_id: expect.stringMatching(/^msg_/), status: 'pending', attempts: 0 },
      { message_id: expect.stringMatching(/^msg_/), status: 'pending', attempts: 0 },
      { message_id: expect.stringMatching(/^msg_/), status: 'pending', attempts: 0 },
    ]);
    // After: each sent once, under the id it was queued with, signed, with its text read from memory.
    const queuedIds = queued.map((d) => d.message_id).sort();
    expect(requests.map((r) => r.headers['webhook-id']).sort()).toEqual(queuedIds);
    const payloads = requests.map((r) => verify(endpoint.secret, r));
    expect(payloads).toEqual(
      expect.arrayContaining(
        writes.map(({ res, body, text }) => ({
          type: 'memory.retained',
          timestamp,
          data: {
            memory_id: res.body.memory_id,
            event_id: body.event.event_id,
            namespace: body.namespace,
            user_id: tenant.user_id,
            request_id: res.body.request_id,
            state: 'retained',
            text,
          },
        })),
      ),
    );
    expect(log.body.data.map((d: { message_id: string }) => d.message_id).sort()).toEqual(queuedIds);
    for (const delivery of log.body.data) {
      expect(delivery).toMatchObject({
        status: 'succeeded',
        next_attempt_at: null,
        attempts: [{ attempted_at: timestamp, status_code: 200, error: null }],
      });
    }
  }, 120_000);

  it('when it is killed after a delivery was sent and before its attempt was recorded, then it is sent again once the lease ends, with the same webhook-id, and the log shows the one recorded attempt', async () => {
    // Arrange: the receiver takes the first request and, as it arrives, freezes the instance that sent
    // it, unanswered: sent, with no attempt recorded.
    const first = await startWebhooksProcess();
    const { tenant, path, endpoint } = await tenantWithEndpoint();
    receiver.hold(path, () => first.signal('SIGSTOP'));

    const { res: written, body } = await writeOne(tenant.api_key);
    await t.stack.memory.flushOutbox();
    const [sent] = await eventually(() => {
      expect(receiver.at(path)).toHaveLength(1);
      return receiver.at(path);
    });
    const before = await outboxOf(endpoint.id);

    // Act: the crash, and a new instance.
    await first.kill('SIGKILL');
    await startWebhooksProcess();
    const [, again] = await eventually(
      () => {
        expect(receiver.at(path)).toHaveLength(2);
        return receiver.at(path);
      },
      { timeout: LEASE_ENDS },
    );
    const log = await succeededLog(tenant.session, endpoint.id, 1);

    // Assert
    if (!sent || !again) throw new Error('no requests');
    expect(before).toEqual([{ message_id: sent.headers['webhook-id'], status: 'pending', attempts: 0 }]);
    expect(again.headers['webhook-id']).toBe(sent.headers['webhook-id']);
    const payload = {
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
    };
    expect(verify(endpoint.secret, sent)).toEqual(payload);
    expect(verify(endpoint.secret, again)).toEqual(payload);
    expect(log.body).toMatchObject({
      data: [
        {
          message_id: sent.headers['webhook-id'],
          status: 'succeeded',
          attempts: [{ attempted_at: timestamp, status_code: 200, error: null }],
        },
      ],
      next_cursor: null,
    });
    expect(log.body.data[0].attempts).toHaveLength(1);
  }, 120_000);
});
