import { createLogger } from '@tm/kit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { endpointBreakers, NOT_SENT } from '../src/domain/deliveries/endpoint-breakers.js';
import type { AttemptOutcome } from '../src/domain/deliveries/post-webhook.js';

// The attempts are stand-ins for postWebhook's outcomes: the receiver is outside the system.
const timedOut: AttemptOutcome = { statusCode: null, error: 'timeout', latencyMs: 300 };
const answered = (statusCode: number): AttemptOutcome => ({ statusCode, error: null, latencyMs: 5 });
const refusedAddress: AttemptOutcome = { statusCode: null, error: 'address_not_allowed', latencyMs: 0 };

const logger = createLogger({ name: 'webhooks-test', level: 'silent' });
let breakers: ReturnType<typeof endpointBreakers>;
afterEach(() => breakers.shutdown());

describe('endpointBreakers', () => {
  it('when an endpoint leaves its attempts unanswered, then it is backed off, its next send is not made, and other endpoints are untouched', async () => {
    breakers = endpointBreakers({ resetMs: 60_000, volume: 2, logger });
    const attempt = vi.fn(async () => timedOut);

    const outcomes = [await breakers.send('slow', attempt), await breakers.send('slow', attempt)];
    const whileOpen = await breakers.send('slow', attempt);
    const other = await breakers.send('fast', async () => answered(200));

    expect(outcomes).toEqual([timedOut, timedOut]);
    expect(whileOpen).toBe(NOT_SENT);
    expect(attempt).toHaveBeenCalledTimes(2);
    expect(other).toEqual(answered(200));
    expect(breakers.states()).toEqual({ open: ['slow'], probing: new Set() });
  });

  it('when the reset has passed, then one probe is allowed, and an answer closes the breaker', async () => {
    breakers = endpointBreakers({ resetMs: 200, volume: 2, logger });
    await breakers.send('slow', async () => timedOut);
    await breakers.send('slow', async () => timedOut);

    await vi.waitFor(() => expect(breakers.states().probing).toEqual(new Set(['slow'])));
    const probe = await breakers.send('slow', async () => answered(204));

    expect(probe).toEqual(answered(204));
    expect(breakers.states()).toEqual({ open: [], probing: new Set() });
  });

  it('when an endpoint answers with errors or its address is refused, then it is not backed off (the retry schedule spaces those)', async () => {
    breakers = endpointBreakers({ resetMs: 60_000, volume: 2, logger });

    const outcomes = [];
    for (const outcome of [answered(500), answered(503), refusedAddress, answered(410)])
      outcomes.push(await breakers.send('erring', async () => outcome));

    expect(outcomes).toEqual([answered(500), answered(503), refusedAddress, answered(410)]);
    expect(breakers.states()).toEqual({ open: [], probing: new Set() });
  });
});
