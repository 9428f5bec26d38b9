import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@tm/kit';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { claimDeliveries, findDueDeliveries } from '../src/data-access/delivery-repository.js';
import { closePrisma, getPrisma, initPrisma } from '../src/data-access/prisma-client.js';
import { createDeliveryDispatcher } from '../src/domain/deliveries/deliver-due.js';
import { listEndpointDeliveries } from '../src/domain/deliveries/delivery-log.js';
import { fanOut, type TenantEvent } from '../src/domain/deliveries/fan-out.js';
import { createEndpoint } from '../src/domain/endpoints/manage-endpoints.js';
import { sealingKey } from '../src/domain/endpoints/signing-secret.js';

// The run's shared webhooks database; a real receiver on 127.0.0.1.
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
beforeAll(async () => {
  initPrisma(inject('stack').webhooksDbUrl, 2);
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await closePrisma();
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
