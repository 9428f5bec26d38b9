import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@tm/kit';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDeliveries, findDueDeliveries } from '../src/data-access/delivery-repository.js';
import { getPrisma } from '../src/data-access/prisma-client.js';
import { createDeliveryDispatcher } from '../src/domain/deliveries/deliver-due.js';
import { listEndpointDeliveries } from '../src/domain/deliveries/delivery-log.js';
import { fanOut, type TenantEvent } from '../src/domain/deliveries/fan-out.js';
import { createEndpoint } from '../src/domain/endpoints/manage-endpoints.js';
import { sealingKey } from '../src/domain/endpoints/signing-secret.js';
import { ownDatabase } from './support/own-database.js';

// This file's own webhooks database; a real receiver on 127.0.0.1.
const key = sealingKey(randomUUID() + randomUUID());
const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(200).end();
  });
});
let url = '';
const database = ownDatabase('deliver_due');
beforeAll(async () => {
  await database.open();
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await database.close();
});

const settings = () => ({
  sealingKey: key,
  retrySchedule: [100],
  timeoutMs: 2_000,
  allowLoopback: true,
  concurrency: 4,
  tenantConcurrency: 4,
  endpointConcurrency: 4,
  breakerResetMs: 60_000,
  breakerVolume: 4,
  readText: async () => null,
  logger: createLogger({ name: 'webhooks-test', level: 'silent' }),
});

/** Send everything due now, refilling slots as answers come, until nothing is due or in flight. */
async function deliverDue() {
  const dispatcher = createDeliveryDispatcher(settings());
  dispatcher.fill();
  await dispatcher.idle();
  await dispatcher.stop();
}

async function endpointWithEvent() {
  const tenantId = randomUUID();
  const endpoint = await createEndpoint(
    {
      tenant_id: tenantId,
      body: { url, events: ['memory.retained'], description: '', include_text: false },
    },
    { sealingKey: key, maxEndpoints: 20, allowLoopback: true },
  );
  const event: TenantEvent = {
    tenantId,
    messageId: `msg_${randomUUID()}`,
    payload: {
      type: 'memory.retained',
      timestamp: new Date().toISOString(),
      data: { memory_id: randomUUID() },
    },
  };
  return { tenantId, endpoint, event };
}

/** The ids of an event's queued deliveries, as the scheduler would pick them. */
const queuedIds = async (messageId: string) =>
  (await getPrisma().webhookDelivery.findMany({ where: { messageId }, select: { id: true } })).map(
    (d) => d.id,
  );

describe('the delivery outbox', () => {
  it('when the same event is handed over twice (a redelivered message), then it is queued once', async () => {
    const { event } = await endpointWithEvent();

    const first = await fanOut([event]);
    const again = await fanOut([event]);

    expect([first, again]).toEqual([1, 0]);
  });

  it('when an instance claimed a delivery and died before recording it, then it is sent once its lease ends, with the same webhook-id, signed', async () => {
    const { tenantId, endpoint, event } = await endpointWithEvent();
    await fanOut([event]);
    // The instance that "died": it leased the delivery (0 ms, so the lease is over at once) and never recorded.
    const taken = await claimDeliveries(getPrisma(), await queuedIds(event.messageId), 0);
    expect(taken.map((d) => d.message_id)).toContain(event.messageId);

    await deliverDue();
    const log = await listEndpointDeliveries({
      tenant_id: tenantId,
      endpoint_id: endpoint.id,
      query: { limit: 10 },
    });

    const mine = received.filter((r) => r.headers['webhook-id'] === event.messageId);
    expect(mine).toHaveLength(1);
    const [request] = mine;
    if (!request) throw new Error('no request');
    expect(
      new Webhook(endpoint.secret).verify(request.body, request.headers as Record<string, string>),
    ).toEqual(event.payload);
    expect(log.data).toMatchObject([{ status: 'succeeded', attempts: [{ status_code: 200 }] }]);
  });

  it("when a tenant is at its cap of deliveries in flight, then its due deliveries are not read, and another tenant's are", async () => {
    const atCap = await endpointWithEvent();
    const other = await endpointWithEvent();
    await fanOut([atCap.event, other.event]);
    const find = (skipTenants: string[]) =>
      findDueDeliveries(getPrisma(), { perEndpoint: 4, limit: 1_000, skipEndpoints: [], skipTenants });

    const all = await find([]);
    const skipping = await find([atCap.tenantId]);

    const tenantsOf = (rows: Array<{ tenantId: string }>) => new Set(rows.map((r) => r.tenantId));
    expect([...tenantsOf(all)]).toEqual(expect.arrayContaining([atCap.tenantId, other.tenantId]));
    expect([...tenantsOf(skipping)]).toContain(other.tenantId);
    expect([...tenantsOf(skipping)]).not.toContain(atCap.tenantId);
  });

  it('when a delivery is leased by one instance, then another does not take it', async () => {
    const { event } = await endpointWithEvent();
    await fanOut([event]);

    const ids = await queuedIds(event.messageId);

    const first = await claimDeliveries(getPrisma(), ids, 60_000);
    const second = await claimDeliveries(getPrisma(), ids, 60_000);

    expect(first.map((d) => d.message_id)).toContain(event.messageId);
    expect(second.map((d) => d.message_id)).not.toContain(event.messageId);
  });
});

/** A receiver that holds every request until `release`, counting how many it holds at once. */
function holdingReceiver() {
  const held: Array<() => void> = [];
  let most = 0;
  let answered = 0;
  const server = createServer((req, res) => {
    req.resume();
    held.push(() => {
      answered += 1;
      res.writeHead(200).end();
    });
    most = Math.max(most, held.length);
  });
  return {
    start: () => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)),
    url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/held`,
    get holding() {
      return held.length;
    },
    get most() {
      return most;
    },
    get answered() {
      return answered;
    },
    /** Answer what is held now. */
    release: () => {
      for (const answer of held.splice(0)) answer();
    },
    stop: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An endpoint at `target` with `count` events queued for it. */
async function endpointWithEvents(target: string, count: number) {
  const tenantId = randomUUID();
  const endpoint = await createEndpoint(
    {
      tenant_id: tenantId,
      body: { url: target, events: ['memory.retained'], description: '', include_text: false },
    },
    { sealingKey: key, maxEndpoints: 20, allowLoopback: true },
  );
  const events: TenantEvent[] = Array.from({ length: count }, () => ({
    tenantId,
    messageId: `msg_${randomUUID()}`,
    payload: {
      type: 'memory.retained',
      timestamp: new Date().toISOString(),
      data: { memory_id: randomUUID() },
    },
  }));
  await fanOut(events);
  return endpoint;
}

const statesOf = async (endpointId: string) =>
  (
    await getPrisma().webhookDelivery.findMany({
      where: { endpointId },
      select: { status: true, nextAttemptAt: true },
    })
  ).map((d) => ({
    status: d.status,
    due: d.nextAttemptAt !== null && d.nextAttemptAt.getTime() <= Date.now(),
  }));

/** `events` queued for an endpoint at a holding receiver, and a dispatcher of one slot an endpoint, filling. */
async function oneSlotAtHoldingReceiver(events: number) {
  const receiver = holdingReceiver();
  await receiver.start();
  const endpoint = await endpointWithEvents(receiver.url(), events);
  const dispatcher = createDeliveryDispatcher({ ...settings(), endpointConcurrency: 1 });
  dispatcher.fill();
  return { receiver, endpoint, dispatcher };
}

describe('the dispatcher', () => {
  it("when an endpoint's receiver is slow, then its next deliveries wait on the instance and start as answers free its one slot", async () => {
    const { receiver, endpoint, dispatcher } = await oneSlotAtHoldingReceiver(4);

    for (let answered = 1; answered <= 4; answered++) {
      await expect.poll(() => receiver.holding, { timeout: 10_000 }).toBe(1);
      receiver.release();
      await expect.poll(() => receiver.answered).toBe(answered);
    }
    await dispatcher.stop();
    await receiver.stop();

    expect(receiver.most).toBe(1);
    expect(await statesOf(endpoint.id)).toEqual(Array(4).fill({ status: 'succeeded', due: false }));
  });

  it('when an instance stops with deliveries leased and not yet sent, then they are due again at once', async () => {
    const { receiver, endpoint, dispatcher } = await oneSlotAtHoldingReceiver(3);

    await expect.poll(() => receiver.holding, { timeout: 10_000 }).toBe(1);
    const stopped = dispatcher.stop();
    receiver.release();
    await stopped;
    await receiver.stop();

    const states = await statesOf(endpoint.id);
    expect(states.filter((s) => s.status === 'succeeded')).toHaveLength(1);
    expect(states.filter((s) => s.status === 'pending')).toEqual([
      { status: 'pending', due: true },
      { status: 'pending', due: true },
    ]);
  });
});
