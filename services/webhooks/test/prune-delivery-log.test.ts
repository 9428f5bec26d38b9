import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, timeOrderedId } from '@tm/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requeueDelivery } from '../src/data-access/delivery-repository.js';
import { getPrisma } from '../src/data-access/prisma-client.js';
import { createDeliveryDispatcher } from '../src/domain/deliveries/deliver-due.js';
import { redeliver } from '../src/domain/deliveries/delivery-log.js';
import { fanOut } from '../src/domain/deliveries/fan-out.js';
import { pruneDeliveryLog } from '../src/domain/deliveries/prune-delivery-log.js';
import { createEndpoint } from '../src/domain/endpoints/manage-endpoints.js';
import { sealingKey } from '../src/domain/endpoints/signing-secret.js';
import { ownDatabase } from './support/own-database.js';

// This file's own webhooks database (real PostgreSQL, every migration applied); a receiver on 127.0.0.1.
const key = sealingKey(randomUUID() + randomUUID());
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200).end());
});
let url = '';
const database = ownDatabase('prune_log');
beforeAll(async () => {
  await database.open();
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await database.close();
});

const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);

async function newEndpoint() {
  const tenantId = randomUUID();
  const endpoint = await createEndpoint(
    { tenant_id: tenantId, body: { url, events: ['memory.retained'], description: '', include_text: false } },
    { sealingKey: key, maxEndpoints: 20, allowLoopback: true },
  );
  return { tenantId, endpointId: endpoint.id };
}

/** A delivery as the poller leaves it, `attempts` attempts made, the last one `finished` (null: still pending). */
async function delivery(
  owner: { tenantId: string; endpointId: string },
  status: 'pending' | 'succeeded' | 'failed',
  queued: Date,
  finished: Date | null,
  attempts = 2,
) {
  const id = timeOrderedId();
  await getPrisma().webhookDelivery.create({
    data: {
      id,
      tenantId: owner.tenantId,
      endpointId: owner.endpointId,
      messageId: `msg_${randomUUID()}`,
      eventType: 'memory.retained',
      payload: { type: 'memory.retained', timestamp: queued.toISOString(), data: {} },
      status,
      scheduleStep: attempts,
      nextAttemptAt: status === 'pending' ? queued : null,
      createdAt: queued,
      finishedAt: finished,
      attempts: {
        create: Array.from({ length: attempts }, (_, i) => ({
          id: timeOrderedId(),
          attemptedAt: new Date(queued.getTime() + i * 1_000),
          statusCode: status === 'succeeded' && i === attempts - 1 ? 200 : 500,
          latencyMs: 12,
        })),
      },
    },
  });
  return id;
}

const stateOf = async (endpointId: string) => {
  const rows = await getPrisma().webhookDelivery.findMany({
    where: { endpointId },
    include: { _count: { select: { attempts: true } } },
  });
  return Object.fromEntries(rows.map((r) => [r.id, { status: r.status, attempts: r._count.attempts }]));
};

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

describe('pruning the delivery log by age', () => {
  it('when deliveries finished longer ago than the retention, then they and their attempts are deleted, batch after batch, and pending and younger ones stay', async () => {
    const owner = await newEndpoint();
    const old = [
      await delivery(owner, 'succeeded', daysAgo(45), daysAgo(40)),
      await delivery(owner, 'succeeded', daysAgo(41), daysAgo(40)),
      await delivery(owner, 'failed', daysAgo(32), daysAgo(31), 8),
      await delivery(owner, 'succeeded', daysAgo(31), daysAgo(30.5), 1),
      await delivery(owner, 'failed', daysAgo(33), daysAgo(31), 3),
    ];
    // Queued 40 days ago and never finished (its endpoint disabled meanwhile): pending whatever its age.
    const pending = await delivery(owner, 'pending', daysAgo(40), null, 3);
    const younger = await delivery(owner, 'succeeded', daysAgo(31), daysAgo(29), 2);

    const pruned = await pruneDeliveryLog({ retentionDays: 30, batchSize: 2 });
    const attemptsLeft = await getPrisma().webhookAttempt.count({ where: { deliveryId: { in: old } } });

    // The file's own database, and nothing before this test queued anything this old: these five are all.
    expect(pruned).toBe(old.length);
    expect(await stateOf(owner.endpointId)).toEqual({
      [pending]: { status: 'pending', attempts: 3 },
      [younger]: { status: 'succeeded', attempts: 2 },
    });
    expect(attemptsLeft).toBe(0);
  });

  it('when nothing is past the retention, then a pass deletes nothing', async () => {
    const owner = await newEndpoint();
    const recent = await delivery(owner, 'succeeded', daysAgo(2), daysAgo(1));

    const pruned = await pruneDeliveryLog({ retentionDays: 30 });

    expect(pruned).toBe(0);
    expect(await stateOf(owner.endpointId)).toEqual({ [recent]: { status: 'succeeded', attempts: 2 } });
  });

  it('when an old delivery is redelivered, then it is kept while pending and counts its age again from its new last attempt', async () => {
    const owner = await newEndpoint();
    const messageId = `msg_${randomUUID()}`;
    await fanOut([
      {
        tenantId: owner.tenantId,
        messageId,
        payload: { type: 'memory.retained', timestamp: new Date().toISOString(), data: {} },
      },
    ]);
    await deliverDue();
    const db = getPrisma();
    const sent = await db.webhookDelivery.findFirstOrThrow({
      where: { endpointId: owner.endpointId, messageId },
      include: { attempts: true },
    });
    // Two months pass.
    await db.webhookDelivery.update({
      where: { id: sent.id },
      data: { createdAt: daysAgo(60), finishedAt: daysAgo(60) },
    });

    await redeliver({ tenant_id: owner.tenantId, endpoint_id: owner.endpointId, delivery_id: sent.id });
    const whilePending = await pruneDeliveryLog({ retentionDays: 30 });
    const pendingState = await stateOf(owner.endpointId);
    await deliverDue();
    const afterSending = await pruneDeliveryLog({ retentionDays: 30 });
    const resent = await db.webhookDelivery.findUniqueOrThrow({
      where: { id: sent.id },
      include: { attempts: { orderBy: { attemptedAt: 'asc' } } },
    });

    // Finished when its one attempt was recorded.
    expect(sent).toMatchObject({ status: 'succeeded', attempts: [{ statusCode: 200 }] });
    expect(sent.finishedAt?.getTime()).toBeGreaterThanOrEqual(sent.attempts[0]?.attemptedAt.getTime() ?? 0);
    expect([whilePending, afterSending]).toEqual([0, 0]);
    expect(pendingState).toEqual({ [sent.id]: { status: 'pending', attempts: 1 } });
    expect(resent).toMatchObject({
      status: 'succeeded',
      attempts: [{ statusCode: 200 }, { statusCode: 200 }],
    });
    expect(resent.finishedAt?.getTime()).toBeGreaterThan(daysAgo(1).getTime());
  });

  it('when a delivery is pruned after a redeliver read it, then putting it back answers nothing (a 404 upstream), not an error', async () => {
    const owner = await newEndpoint();
    const id = await delivery(owner, 'succeeded', daysAgo(60), daysAgo(60));
    await pruneDeliveryLog({ retentionDays: 30 });

    const requeued = await requeueDelivery(getPrisma(), id);

    expect(requeued).toBeNull();
    expect(await stateOf(owner.endpointId)).toEqual({});
  });
});
