import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { drainEndpoints } from '../src/request-reply/drain-endpoints.js';
import { requestReply } from '../src/request-reply/request.js';
import { serveEndpoint } from '../src/request-reply/serve.js';

const logger = pino({ level: 'silent' });
const Input = z.object({ n: z.number().int() });
const Output = z.object({ n: z.number().int() });

let nc: NatsConnection;
beforeAll(async () => {
  nc = await connect({ servers: inject('stack').natsUrl });
});
afterAll(() => nc.close());

/** An endpoint whose handler answers only when the test lets it; `started` resolves when it has the request. */
function serveHeld(subject: string) {
  let release: () => void = () => {};
  const state = { answered: false };
  let onStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    onStarted = resolve;
  });
  const subscription = serveEndpoint(
    nc,
    {
      subject,
      queue: 'test',
      input: Input,
      handler: async ({ n }) => {
        onStarted();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        state.answered = true;
        return { n };
      },
    },
    logger,
  );
  return { subscription, started, state, release: () => release() };
}

const call = (subject: string, n: number) =>
  requestReply(nc, subject, { input: Input, output: Output }, { n }, { timeoutMs: 5_000, service: 'test' });

describe('drainEndpoints', () => {
  it('when a request is being handled as the service stops, then its answer is sent before the drain resolves', async () => {
    const subject = `test.drain.${randomUUID()}`;
    const held = serveHeld(subject);
    await nc.flush();
    const answer = call(subject, 7);
    await held.started;

    const drained = drainEndpoints([held.subscription], 5_000, logger);
    setTimeout(held.release, 100);

    expect(await drained).toBe(0);
    expect(held.state.answered).toBe(true); // answered before the drain let the service close its pool
    expect(await answer).toEqual({ n: 7 });
  });

  it('when a handler never finishes, then the drain gives up at its bound and says how many it left', async () => {
    const subject = `test.drain.${randomUUID()}`;
    const held = serveHeld(subject);
    await nc.flush();
    const answer = call(subject, 1).catch((err: unknown) => err);
    await held.started;

    const left = await drainEndpoints([held.subscription], 200, logger);

    expect(left).toBe(1);
    held.release(); // the answer goes to a caller still waiting: this test's own connection
    expect(await answer).toEqual({ n: 1 });
  });

  it('when the subscription is drained, then a new request finds nobody listening', async () => {
    const subject = `test.drain.${randomUUID()}`;
    const held = serveHeld(subject);
    await nc.flush();

    await drainEndpoints([held.subscription], 1_000, logger);
    const refused = await call(subject, 2).catch((err: unknown) => err);

    expect(refused).toMatchObject({ code: 'service_unavailable', retryable: true });
  });
});
