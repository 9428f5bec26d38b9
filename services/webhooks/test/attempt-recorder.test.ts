import { randomUUID } from 'node:crypto';
import { timeOrderedId } from '@tm/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AttemptRecord, createAttemptRecorder } from '../src/data-access/attempt-recorder.js';
import { getPrisma } from '../src/data-access/prisma-client.js';
import { fanOut } from '../src/domain/deliveries/fan-out.js';
import { createEndpoint } from '../src/domain/endpoints/manage-endpoints.js';
import { sealingKey } from '../src/domain/endpoints/signing-secret.js';
import { ownDatabase } from './support/own-database.js';

const key = sealingKey(randomUUID() + randomUUID());
const database = ownDatabase('attempt_recorder');
beforeAll(() => database.open());
afterAll(() => database.close());

/** An endpoint with `count` queued deliveries; their ids. */
async function queued(count: number) {
  const tenantId = randomUUID();
  const endpoint = await createEndpoint(
    {
      tenant_id: tenantId,
      body: {
        url: 'http://127.0.0.1:9/hook',
        events: ['memory.retained'],
        description: '',
        include_text: false,
      },
    },
    { sealingKey: key, maxEndpoints: 20, allowLoopback: true },
  );
  await fanOut(
    Array.from({ length: count }, () => ({
      tenantId,
      messageId: `msg_${randomUUID()}`,
      payload: { type: 'memory.retained' as const, timestamp: new Date().toISOString(), data: {} },
    })),
  );
  const rows = await getPrisma().webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
  return { endpointId: endpoint.id, ids: rows.map((r) => r.id) };
}

const attempt = (deliveryId: string, change: Partial<AttemptRecord>): AttemptRecord => ({
  id: timeOrderedId(),
  deliveryId,
  attemptedAt: new Date(),
  statusCode: 200,
  latencyMs: 7,
  error: null,
  status: 'succeeded',
  scheduleStep: 1,
  nextAttemptAt: null,
  ...change,
});

describe('the attempt recorder', () => {
  it('when attempts are answered in the same turn, then each is recorded and its delivery settled as its outcome says', async () => {
    const { ids } = await queued(3);
    const [ok, again, gaveUp] = ids as [string, string, string];
    const retryAt = new Date(Date.now() + 60_000);
    const record = createAttemptRecorder(getPrisma());

    await Promise.all([
      record(attempt(ok, {})),
      record(attempt(again, { statusCode: 503, status: 'pending', nextAttemptAt: retryAt })),
      record(attempt(gaveUp, { statusCode: null, error: 'timeout', status: 'failed', scheduleStep: 8 })),
    ]);
    const rows = await getPrisma().webhookDelivery.findMany({
      where: { id: { in: ids } },
      include: { attempts: true },
    });
    const byId = new Map(rows.map((r) => [r.id, r]));

    expect(byId.get(ok)).toMatchObject({ status: 'succeeded', scheduleStep: 1, nextAttemptAt: null });
    expect(byId.get(ok)?.finishedAt).toBeInstanceOf(Date);
    expect(byId.get(again)).toMatchObject({ status: 'pending', nextAttemptAt: retryAt, finishedAt: null });
    expect(byId.get(gaveUp)).toMatchObject({ status: 'failed', scheduleStep: 8 });
    expect(byId.get(gaveUp)?.attempts).toMatchObject([{ statusCode: null, error: 'timeout', latencyMs: 7 }]);
    expect(rows.map((r) => r.attempts.length)).toEqual([1, 1, 1]);
  });

  it('when a delivery is gone by the time its attempt is recorded (its endpoint deleted), then nothing is recorded for it and the others are', async () => {
    const gone = await queued(1);
    const kept = await queued(1);
    await getPrisma().webhookEndpoint.delete({ where: { id: gone.endpointId } });
    const record = createAttemptRecorder(getPrisma());

    await Promise.all([
      record(attempt(gone.ids[0] as string, {})),
      record(attempt(kept.ids[0] as string, {})),
    ]);

    expect(await getPrisma().webhookAttempt.count({ where: { deliveryId: gone.ids[0] } })).toBe(0);
    expect(await getPrisma().webhookAttempt.count({ where: { deliveryId: kept.ids[0] } })).toBe(1);
  });
});
