import type { JsMsg } from '@nats-io/jetstream';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import {
  FAILURE_POLICY,
  type FetchStore,
  failureGist,
  isLastDelivery,
  refusedForGood,
  settleFetch,
  storeFetch,
} from '../src/jetstream/failure-policy.js';

/** A delivered message as the policy sees it: its sequence, delivery count, ack and nak. */
const message = (seq: number, deliveryCount = 1) =>
  ({ seq, info: { deliveryCount }, ack: vi.fn(), nak: vi.fn() }) as unknown as JsMsg & {
    ack: ReturnType<typeof vi.fn>;
    nak: ReturnType<typeof vi.fn>;
  };

const storageDown = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const refusal = () => new Error('insert failed\nERROR: value out of range for type integer');

type Part = { msg: JsMsg; name: string };
const logger = pino({ level: 'silent' });

function store(
  overrides: Partial<FetchStore<Part>>,
): FetchStore<Part> & { aloneCalls: Array<[string, boolean]> } {
  const aloneCalls: Array<[string, boolean]> = [];
  return {
    what: 'parts',
    messageOf: (part) => part.msg,
    together: async () => undefined,
    alone: async (part, lastDelivery) => {
      aloneCalls.push([part.name, lastDelivery]);
      return true;
    },
    logger,
    ...overrides,
    aloneCalls,
  };
}

describe('storeFetch (a fetch stored together, else part by part)', () => {
  it('when the parts are stored together, then no message must come back and none is stored alone', async () => {
    const [m1, m2] = [message(1), message(2)];
    const s = store({});

    const unsettled = await storeFetch(
      [
        { msg: m1, name: 'a' },
        { msg: m2, name: 'b' },
      ],
      s,
    );

    expect([...unsettled]).toEqual([]);
    expect(s.aloneCalls).toEqual([]);
  });

  it('when storing together leaves messages to come back, then exactly those come back', async () => {
    const [m1, m2] = [message(1), message(2)];

    const unsettled = await storeFetch(
      [
        { msg: m1, name: 'a' },
        { msg: m2, name: 'b' },
      ],
      store({ together: async () => [m2] }),
    );

    expect([...unsettled]).toEqual([m2]);
  });

  it('when storage is down, then every message comes back and nothing is tried alone', async () => {
    const [m1, m2] = [message(1, 3), message(2)];
    const s = store({
      together: async () => {
        throw storageDown();
      },
    });

    const unsettled = await storeFetch(
      [
        { msg: m1, name: 'a' },
        { msg: m2, name: 'b' },
        { msg: m2, name: 'c' },
      ],
      s,
    );

    expect([...unsettled]).toEqual([m1, m2]);
    expect(s.aloneCalls).toEqual([]);
  });

  it('when the store refuses the fetch, then each part is stored alone, told whether its message is on its last (third) delivery', async () => {
    const [first, second, third] = [message(1, 1), message(2, 2), message(3, 3)];
    const s = store({
      together: async () => {
        throw refusal();
      },
    });

    const unsettled = await storeFetch(
      [
        { msg: first, name: 'a' },
        { msg: second, name: 'b' },
        { msg: third, name: 'c' },
        { msg: third, name: 'd' },
      ],
      s,
    );

    expect(s.aloneCalls).toEqual([
      ['a', false],
      ['b', false],
      ['c', true],
      ['d', true],
    ]);
    expect([...unsettled]).toEqual([]);
  });

  it('when a part stored alone is not settled or throws, then its message comes back and the other parts are still stored', async () => {
    const [m1, m2, m3] = [message(1), message(2), message(3)];
    const stored: string[] = [];
    const s = store({
      together: async () => {
        throw refusal();
      },
      alone: async (part) => {
        if (part.name === 'b') throw storageDown();
        stored.push(part.name);
        return part.name !== 'a';
      },
    });

    const unsettled = await storeFetch(
      [
        { msg: m1, name: 'a' },
        { msg: m2, name: 'b' },
        { msg: m3, name: 'c' },
      ],
      s,
    );

    expect([...unsettled]).toEqual([m1, m2]);
    expect(stored).toEqual(['a', 'c']);
  });

  it('when the policy allows more deliveries, then the last delivery is the one that reaches the maximum', async () => {
    const s = store({
      together: async () => {
        throw refusal();
      },
    });

    await storeFetch(
      [
        { msg: message(1, 3), name: 'a' },
        { msg: message(2, 5), name: 'b' },
      ],
      s,
      {
        maxDeliveries: 5,
        redeliveryDelayMs: 1_000,
      },
    );

    expect(s.aloneCalls).toEqual([
      ['a', false],
      ['b', true],
    ]);
  });
});

describe('settleFetch (ack or nak each message of a fetch)', () => {
  it('when some messages must come back, then those are nak’ed with a one-second delay and the rest acknowledged once', () => {
    const [m1, m2, m3] = [message(1), message(2), message(3)];

    settleFetch([m1, m2, m3], new Set([m2]));

    expect(FAILURE_POLICY.redeliveryDelayMs).toBe(1_000);
    expect(m1.ack).toHaveBeenCalledTimes(1);
    expect(m1.nak).not.toHaveBeenCalled();
    expect(m2.nak).toHaveBeenCalledExactlyOnceWith(1_000);
    expect(m2.ack).not.toHaveBeenCalled();
    expect(m3.ack).toHaveBeenCalledTimes(1);
  });

  it('when a policy names another delay, then the nak carries it', () => {
    const m = message(1);

    settleFetch([m], new Set([m]), { maxDeliveries: 3, redeliveryDelayMs: 250 });

    expect(m.nak).toHaveBeenCalledExactlyOnceWith(250);
  });
});

describe('the dead-letter decision', () => {
  it('when a message is on its first or second delivery, then it is not the last; on the third or later it is', () => {
    expect(FAILURE_POLICY.maxDeliveries).toBe(3);
    expect([1, 2, 3, 4].map((n) => isLastDelivery(message(1, n)))).toEqual([false, false, true, true]);
  });

  it('when a part is refused on the last delivery, then it is dead-lettered, but never while storage is down', () => {
    expect(refusedForGood(refusal(), true)).toBe(true);
    expect(refusedForGood(refusal(), false)).toBe(false);
    expect(refusedForGood(storageDown(), true)).toBe(false);
    expect(refusedForGood(storageDown(), false)).toBe(false);
  });

  it('when a database error spans several lines, then its gist is the last line, trimmed', () => {
    expect(failureGist(refusal())).toBe('ERROR: value out of range for type integer');
    expect(failureGist(new Error('  one line  \n'))).toBe('one line');
    expect(failureGist('a thrown string')).toBe('a thrown string');
  });
});
