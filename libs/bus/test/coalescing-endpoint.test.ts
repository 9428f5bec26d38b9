import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { AppError, ErrorCode } from '@tm/contracts';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import {
  createCoalescingRequester,
  serveCoalescedEndpoint,
} from '../src/request-reply/coalescing-endpoint.js';

const logger = pino({ level: 'silent' });
const Input = z.object({ n: z.number().int() });
const Output = z.object({ doubled: z.number() });

let nc: NatsConnection;
beforeAll(async () => {
  nc = await connect({ servers: inject('stack').natsUrl });
});
afterAll(() => nc.close());

/** A requester for `subject`, with the options the tests share. */
const doublingRequester = (subject: string, maxBytes?: number) =>
  createCoalescingRequester(
    nc,
    subject,
    { input: Input, output: Output },
    { timeoutMs: 2_000, service: 'doubling', ...(maxBytes && { maxBytes }) },
  );

/** A served subject whose handler doubles n, refuses negative n (409) and fails on n = 13. */
function serveDoubling(subject: string) {
  return serveCoalescedEndpoint(
    nc,
    {
      subject,
      queue: 'test',
      input: Input,
      handler: async ({ n }) => {
        if (n < 0) throw new AppError(ErrorCode.IdempotencyConflict, `refused ${n}`);
        if (n === 13) throw new Error('unlucky');
        return { doubled: n * 2 };
      },
    },
    logger,
  );
}

describe('coalesced request/reply', () => {
  it('when calls are made in one turn, then they travel in one message and each gets its own answer or error', async () => {
    const subject = `test.coalesced.${randomUUID()}`;
    const messages: number[][] = [];
    const tap = nc.subscribe(subject, {
      callback: (_err, msg) => {
        messages.push((msg.json() as { items: Array<{ n: number }> }).items.map((i) => i.n));
      },
    });
    const sub = serveDoubling(subject);
    await nc.flush();
    const call = doublingRequester(subject);

    const answers = await Promise.allSettled([
      call({ n: 1 }),
      call({ n: -2 }),
      call({ n: 13 }),
      call({ n: 4 }),
    ]);
    sub.unsubscribe();
    tap.unsubscribe();

    expect(messages).toEqual([[1, -2, 13, 4]]);
    expect(answers[0]).toEqual({ status: 'fulfilled', value: { doubled: 2 } });
    expect(answers[3]).toEqual({ status: 'fulfilled', value: { doubled: 8 } });
    const reasons = answers.map((a) => (a.status === 'rejected' ? (a.reason as AppError) : undefined));
    expect(reasons[1]).toMatchObject({ code: ErrorCode.IdempotencyConflict, message: 'refused -2' });
    expect(reasons[2]).toMatchObject({ code: ErrorCode.Internal, message: 'Internal error' });
  });

  it('when a call does not match the contract, then only that caller gets the validation error, before anything is sent', async () => {
    const subject = `test.coalesced.${randomUUID()}`;
    const sub = serveDoubling(subject);
    await nc.flush();
    const call = doublingRequester(subject);

    const bad = call({ n: 1.5 });
    const good = call({ n: 5 });

    await expect(bad).rejects.toBeInstanceOf(z.ZodError);
    await expect(good).resolves.toEqual({ doubled: 10 });
    sub.unsubscribe();
  });

  it('when the message would pass the byte limit, then the calls are split over several messages', async () => {
    const subject = `test.coalesced.${randomUUID()}`;
    const sizes: number[] = [];
    const tap = nc.subscribe(subject, {
      callback: (_err, msg) => {
        sizes.push((msg.json() as { items: unknown[] }).items.length);
      },
    });
    const sub = serveDoubling(subject);
    await nc.flush();
    // Each item is {"n":<digit>}: 7 bytes, so 20 bytes hold two of them.
    const call = doublingRequester(subject, 20);

    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => call({ n })));
    sub.unsubscribe();
    tap.unsubscribe();

    expect(answers.map((a) => a.doubled)).toEqual([2, 4, 6, 8, 10]);
    expect(sizes).toEqual([2, 2, 1]);
  });

  it('when nobody serves the subject, then every call of the message fails with a retryable 503', async () => {
    const call = doublingRequester(`test.coalesced.${randomUUID()}`);

    const answers = await Promise.allSettled([call({ n: 1 }), call({ n: 2 })]);

    for (const a of answers) {
      expect(a.status).toBe('rejected');
      const reason = (a as PromiseRejectedResult).reason as AppError;
      expect(reason).toBeInstanceOf(AppError);
      expect(reason).toMatchObject({ code: ErrorCode.ServiceUnavailable, retryable: true });
    }
  });
});
