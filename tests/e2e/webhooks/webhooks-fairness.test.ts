import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlSteps, suffix } from '../support/control.js';
import { eventually } from '../support/eventually.js';
import { uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';
import { useReceiver, WEBHOOK_ENDPOINTS } from '../support/webhooks.js';

// The longest attempt bound (30 s): a held connection stays held for the whole test unless the
// sender closes it early, so "still held" below means the sender has not given up on any of them.
const t = useStack({
  webhooksEnv: {
    WEBHOOKS_ATTEMPT_TIMEOUT_MS: '30000',
    WEBHOOKS_RETRY_SCHEDULE_MS: '200,200,200',
    WEBHOOKS_CONCURRENCY: '16',
    WEBHOOKS_TENANT_CONCURRENCY: '8',
  },
});
const { tenantWithSession } = controlSteps(t);
const fast = useReceiver();

/**
 * A receiver that takes every request and answers none until released: a customer's server that
 * hangs. It keeps, in order, what happened to its connections and when another receiver was reached.
 */
function useHangingReceiver() {
  const held = new Set<ServerResponse>();
  const events: string[] = [];
  let releasing = false;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (releasing) return void res.writeHead(200).end('ok');
      held.add(res);
      events.push('held');
      res.on('close', () => {
        if (held.delete(res) && !res.writableEnded) events.push('closed by the sender');
      });
    });
  });
  const receiver = {
    url: '',
    events,
    held: () => held.size,
    /** Answer every held request 200, and every later one at once. */
    release: () => {
      releasing = true;
      for (const res of [...held]) {
        held.delete(res);
        res.writeHead(200).end('ok');
      }
    },
  };
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return receiver;
}
const hanging = useHangingReceiver();

async function registerEndpoint(session: string, url: string) {
  const created = await t.api.post(WEBHOOK_ENDPOINTS, {
    key: session,
    body: { url, events: ['memory.retained'] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string };
}

async function writeOne(apiKey: string) {
  const res = await t.api.write(apiKey, writeBody(uniqueNamespace('fair'), `note ${suffix()}`), uniqueKey());
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await t.stack.memory.flushOutbox();
}

describe('webhook deliveries shared between tenants', () => {
  it('when one tenant’s 20 endpoints hang, then another tenant’s delivery arrives while they are still held, and the held ones are delivered once released', async () => {
    // Arrange: tenant A, the most endpoints, all at the hanging receiver; A's deliveries in flight.
    const a = await tenantWithSession({ consent: true });
    const endpoints: Array<{ id: string }> = [];
    for (let i = 0; i < 20; i += 1)
      endpoints.push(await registerEndpoint(a.session, `${hanging.url}/a/${i}`));
    await writeOne(a.api_key);
    await writeOne(a.api_key);
    await eventually(() => expect(hanging.held()).toBeGreaterThanOrEqual(8));
    const b = await tenantWithSession({ consent: true });
    const path = `/b/${suffix()}`;
    await registerEndpoint(b.session, `${fast.url}${path}`);

    // Act: B writes one memory.
    await writeOne(b.api_key);
    await eventually(() => expect(fast.at(path)).toHaveLength(1));
    const atArrival = { events: [...hanging.events], held: hanging.held() };

    // Assert: B's arrived with A's connections held and none of them given up on.
    expect(atArrival.events).not.toContain('closed by the sender');
    expect(atArrival.held).toBeGreaterThanOrEqual(8);

    // And once A's receiver answers, every one of A's 40 deliveries is delivered.
    hanging.release();
    const logs = await eventually(
      async () => {
        const all = await Promise.all(
          endpoints.map((e) => t.api.get(`${WEBHOOK_ENDPOINTS}/${e.id}/deliveries`, { key: a.session })),
        );
        for (const log of all) {
          expect(log.status).toBe(200);
          expect(log.body.data.map((d: { status: string }) => d.status)).toEqual(['succeeded', 'succeeded']);
        }
        return all;
      },
      { timeout: 60_000, interval: 500 },
    );
    expect(logs).toHaveLength(20);
    expect(hanging.events).not.toContain('closed by the sender');
  });
});
