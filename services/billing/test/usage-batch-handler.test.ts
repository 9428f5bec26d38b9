import type { JsMsg } from '@tm/bus';
import { Subjects, UsageDeadLetter, type UsageRecordedEvent } from '@tm/contracts';
import { createLogger } from '@tm/kit';
import { describe, expect, it, vi } from 'vitest';
import type { Refused } from '../src/domain/record-usage.js';
import { usageBatchHandler } from '../src/entry-points/nats/usage-batch-handler.js';

const usage = (n: number, extra: Partial<UsageRecordedEvent> = {}): UsageRecordedEvent => ({
  usage_id: `usage-${n}`,
  tenant_id: 'tenant-1',
  user_id: 'user-1',
  key_id: 'key-1',
  request_id: `req-${n}`,
  operation: 'memory.write',
  namespace: 'notes',
  units: 1,
  pricing_version: 'sandbox-2026-11',
  occurred_at: '2026-11-25T01:20:03.112Z',
  ...extra,
});

type Message = JsMsg & { ack: ReturnType<typeof vi.fn>; nak: ReturnType<typeof vi.fn> };

/** A delivered JetStream message as the consumer reads it. */
function message(seq: number, text: string, deliveryCount = 1): Message {
  return {
    seq,
    subject: Subjects.memory.usageRecorded,
    data: new TextEncoder().encode(text),
    string: () => text,
    info: { deliveryCount },
    ack: vi.fn(),
    nak: vi.fn(),
  } as unknown as Message;
}
const batchOf = (seq: number, records: unknown[], deliveryCount = 1) =>
  message(seq, JSON.stringify({ version: 'v1', records }), deliveryCount);

const storageDown = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

/**
 * The consumer with a ledger that charges what `ledger` lets through, and a dead-letter subject that
 * keeps what is published (or refuses it when `publishFails`).
 */
function consumer(
  ledger: (events: UsageRecordedEvent[]) => { refused: Refused[] } = () => ({ refused: [] }),
  options: { publishFails?: boolean } = {},
) {
  const charged: string[][] = [];
  const letters: Array<{ id: string; letter: UsageDeadLetter }> = [];
  const handle = usageBatchHandler({
    record: async (events) => {
      const result = ledger(events);
      charged.push(events.map((e) => e.usage_id));
      return result;
    },
    publishDeadLetter: async (json, id) => {
      if (options.publishFails) throw new Error('no JetStream response');
      letters.push({ id, letter: UsageDeadLetter.parse(JSON.parse(json)) });
    },
    logger: createLogger({ name: 'usage-consumer-test', level: 'silent' }),
  });
  return { handle, charged, letters };
}

const acknowledged = (msg: Message) => ({ acks: msg.ack.mock.calls.length, naks: msg.nak.mock.calls });
const ACKED = { acks: 1, naks: [] };
const REDELIVERED = { acks: 0, naks: [[1_000]] };
const at = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

describe('the usage consumer (charges a fetch of usage messages, dead-letters what cannot be charged)', () => {
  it('when a batch message and a bare record are charged, then they are charged in one call and both acknowledged', async () => {
    const { handle, charged, letters } = consumer();
    const batch = batchOf(1, [usage(1), usage(2)]);
    const bare = message(2, JSON.stringify(usage(3)));

    await handle([batch, bare]);

    expect(charged).toEqual([['usage-1', 'usage-2', 'usage-3']]);
    expect(letters).toEqual([]);
    expect([acknowledged(batch), acknowledged(bare)]).toEqual([ACKED, ACKED]);
  });

  it('when messages are not JSON, nest too deep or claim to be a batch and are not one, then each is dead-lettered whole with its reason and acknowledged', async () => {
    const { handle, charged, letters } = consumer();
    const notJson = message(7, '{"version":');
    const deep = message(8, `${'['.repeat(200)}${']'.repeat(200)}`);
    const badBatch = message(9, '{"version":"v1","records":[]}');
    const good = batchOf(10, [usage(1)]);

    await handle([notJson, deep, badBatch, good]);

    expect(letters).toEqual([
      {
        id: 'usage-7',
        letter: {
          stream_sequence: 7,
          subject: Subjects.memory.usageRecorded,
          reason: 'not JSON',
          payload: '{"version":',
          dead_lettered_at: at,
        },
      },
      { id: 'usage-8', letter: expect.objectContaining({ stream_sequence: 8, reason: 'nested too deep' }) },
      {
        id: 'usage-9',
        letter: expect.objectContaining({
          stream_sequence: 9,
          reason: 'not a usage record (schema)',
          payload: '{"version":"v1","records":[]}',
        }),
      },
    ]);
    expect(letters.map((l) => l.letter)).not.toContainEqual(
      expect.objectContaining({ record_index: expect.anything() }),
    );
    expect(charged).toEqual([['usage-1']]);
    expect([notJson, deep, badBatch, good].map(acknowledged)).toEqual([ACKED, ACKED, ACKED, ACKED]);
  });

  it('when one record of a batch breaks the schema, then it alone is dead-lettered by its place, the others are charged, and the message acknowledged', async () => {
    const { handle, charged, letters } = consumer();
    const broken = { ...usage(2), units: -1 };
    const batch = batchOf(4, [usage(1), broken, usage(3)]);

    await handle([batch]);

    expect(letters).toEqual([
      {
        id: 'usage-4-1',
        letter: {
          stream_sequence: 4,
          record_index: 1,
          subject: Subjects.memory.usageRecorded,
          reason: 'not a usage record (schema)',
          payload: JSON.stringify(broken),
          dead_lettered_at: at,
        },
      },
    ]);
    expect(charged).toEqual([['usage-1', 'usage-3']]);
    expect(acknowledged(batch)).toEqual(ACKED);
  });

  it('when a bare message breaks the schema, then the whole message is dead-lettered', async () => {
    const { handle, letters } = consumer();
    const bare = message(5, JSON.stringify({ ...usage(1), operation: 'memory.forget' }));

    await handle([bare]);

    expect(letters).toEqual([
      {
        id: 'usage-5',
        letter: expect.objectContaining({ reason: 'not a usage record (schema)', payload: bare.string() }),
      },
    ]);
    expect(letters[0]?.letter).not.toHaveProperty('record_index');
    expect(acknowledged(bare)).toEqual(ACKED);
  });

  it('when the ledger refuses a record (no price for its version), then it is dead-lettered with the ledger’s reason and its message acknowledged', async () => {
    const unpriced = usage(2, { pricing_version: 'unknown-version' });
    const { handle, letters } = consumer((events) => ({
      refused: events
        .filter((e) => e.pricing_version === 'unknown-version')
        .map((event) => ({ event, reason: `no price for ${event.operation} in ${event.pricing_version}` })),
    }));
    const batch = batchOf(6, [usage(1), unpriced]);

    await handle([batch]);

    expect(letters).toEqual([
      {
        id: 'usage-6-1',
        letter: expect.objectContaining({
          record_index: 1,
          reason: 'no price for memory.write in unknown-version',
          payload: JSON.stringify(unpriced),
        }),
      },
    ]);
    expect(acknowledged(batch)).toEqual(ACKED);
  });

  it('when a dead letter cannot be published, then its message is nak’ed to come back in a second, and the other messages are acknowledged', async () => {
    const { handle, charged } = consumer(undefined, { publishFails: true });
    const notJson = message(1, 'not json');
    const good = batchOf(2, [usage(1)]);

    await handle([notJson, good]);

    expect(charged).toEqual([['usage-1']]);
    expect([acknowledged(notJson), acknowledged(good)]).toEqual([REDELIVERED, ACKED]);
  });

  it('when the ledger’s database is down, then every message of the fetch comes back in a second, none is dead-lettered, and nothing is tried one by one', async () => {
    let calls = 0;
    const { handle, letters } = consumer(() => {
      calls += 1;
      throw storageDown();
    });
    const [a, b] = [batchOf(1, [usage(1), usage(2)], 3), batchOf(2, [usage(3)], 3)];

    await handle([a, b]);

    expect(calls).toBe(1);
    expect(letters).toEqual([]);
    expect([acknowledged(a), acknowledged(b)]).toEqual([REDELIVERED, REDELIVERED]);
  });

  it('when the ledger fails a fetch for another reason, then its records are charged one by one, and one it refuses alone comes back on its first and second delivery', async () => {
    const failing = usage(2, { units: 2_147_483_648 });
    const ledger = (events: UsageRecordedEvent[]) => {
      if (events.some((e) => e.usage_id === failing.usage_id)) {
        throw new Error('Invalid query\nERROR: value "2147483648" is out of range for type integer');
      }
      return { refused: [] };
    };
    for (const delivery of [1, 2]) {
      const { handle, charged, letters } = consumer(ledger);
      const withFailing = batchOf(1, [usage(1), failing], delivery);
      const other = batchOf(2, [usage(3)], delivery);

      await handle([withFailing, other]);

      expect(charged).toEqual([['usage-1'], ['usage-3']]);
      expect(letters).toEqual([]);
      expect([acknowledged(withFailing), acknowledged(other)]).toEqual([REDELIVERED, ACKED]);
    }
  });

  it('when a record the ledger refuses alone is on its third delivery, then it is dead-lettered with the error’s last line and its message acknowledged', async () => {
    const failing = usage(2, { units: 2_147_483_648 });
    const { handle, charged, letters } = consumer((events) => {
      if (events.some((e) => e.usage_id === failing.usage_id)) {
        throw new Error('Invalid query\nERROR: value "2147483648" is out of range for type integer  ');
      }
      return { refused: [] };
    });
    const batch = batchOf(3, [usage(1), failing], 3);

    await handle([batch]);

    expect(charged).toEqual([['usage-1']]);
    expect(letters).toEqual([
      {
        id: 'usage-3-1',
        letter: expect.objectContaining({
          stream_sequence: 3,
          record_index: 1,
          reason: 'the ledger refused the record: ERROR: value "2147483648" is out of range for type integer',
          payload: JSON.stringify(failing),
        }),
      },
    ]);
    expect(acknowledged(batch)).toEqual(ACKED);
  });

  it('when the ledger’s error is long, then the dead letter quotes at most 300 characters of it', async () => {
    const { handle, letters } = consumer((events) => {
      if (events.length > 1 || events[0]?.usage_id === 'usage-2')
        throw new Error(`ERROR: ${'x'.repeat(400)}`);
      return { refused: [] };
    });

    await handle([batchOf(1, [usage(1), usage(2)], 3)]);

    expect(letters.map((l) => l.letter.reason)).toEqual([
      `the ledger refused the record: ${`ERROR: ${'x'.repeat(400)}`.slice(0, 300)}`,
    ]);
  });

  it('when the database goes down while records are charged one by one, then a record on its third delivery is not dead-lettered but comes back', async () => {
    let calls = 0;
    const { handle, letters } = consumer(() => {
      calls += 1;
      if (calls === 1) throw new Error('ERROR: value out of range');
      throw storageDown();
    });
    const batch = batchOf(1, [usage(1)], 3);

    await handle([batch]);

    expect(letters).toEqual([]);
    expect(acknowledged(batch)).toEqual(REDELIVERED);
  });
});
