import { createHash } from 'node:crypto';
import type { WriteRequest } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { differingFields, fingerprintWrite } from '../src/domain/fingerprint.js';

const base: WriteRequest = {
  contract_version: 'v1',
  namespace: 'notes',
  event: {
    occurred_at: '2026-11-22T09:00:00Z',
    content: { text: 'hello' },
    source: { type: 'direct_user_input', id: 's1' },
  },
};

/** Was `changed`, repeated under the key `first` recorded, the same write; if not, where it differs. */
const compare = (first: WriteRequest, changed: WriteRequest, eventId = 'e1', firstEventId = 'e1') =>
  differingFields(fingerprintWrite(first, firstEventId), changed, eventId);

describe('fingerprintWrite', () => {
  it('when only key order, the idempotency key or the spelling of the same instant differ, then it is the same write', () => {
    const reordered = {
      event: {
        source: { id: 's1', type: 'direct_user_input' },
        content: { text: 'hello' },
        occurred_at: '2026-11-22T10:00:00+01:00',
      },
      namespace: 'notes',
      contract_version: 'v1',
      idempotency_key: 'k-1',
      operation: 'memory.write',
    } as WriteRequest;
    expect(fingerprintWrite(reordered, 'e1')).toBe(fingerprintWrite(base, 'e1'));
    expect(compare(base, reordered)).toEqual([]);
  });

  it.each([
    ['event.content.text', { ...base, event: { ...base.event, content: { text: 'hello!' } } }],
    ['namespace', { ...base, namespace: 'other' }],
    ['event.occurred_at', { ...base, event: { ...base.event, occurred_at: '2026-11-22T09:00:01Z' } }],
    [
      'event.source.id',
      { ...base, event: { ...base.event, source: { type: 'direct_user_input', id: 's2' } } },
    ],
    ['event.supersedes', { ...base, event: { ...base.event, supersedes: ['e0'] } }],
  ] as Array<[string, WriteRequest]>)(
    'when %s differs, then the repeat names it and nothing else',
    (path, changed) => {
      expect(fingerprintWrite(changed, 'e1')).not.toBe(fingerprintWrite(base, 'e1'));
      expect(compare(base, changed)).toEqual([path]);
    },
  );

  it('when the event id differs, then the repeat names it', () => {
    expect(compare(base, base, 'e2')).toEqual(['event.event_id']);
  });

  it('when the fingerprint is kept, then it holds none of the text, namespace or source', () => {
    const kept = fingerprintWrite(base, 'e1');
    for (const value of ['hello', 'notes', 'direct_user_input', 's1']) expect(kept).not.toContain(value);
  });
});

describe('a repeat that gives no event time', () => {
  const untimed: WriteRequest = {
    ...base,
    event: { content: base.event.content, source: base.event.source },
  };

  it('when the first write gave none either, then it is the same write', () => {
    expect(compare(untimed, untimed)).toEqual([]);
  });

  it('when the first write gave one, then it is the same write: the time is left to what was recorded', () => {
    expect(compare(base, untimed)).toEqual([]);
  });

  it('when the first write gave none and the repeat gives one, then the repeat names event.occurred_at', () => {
    expect(compare(untimed, base)).toEqual(['event.occurred_at']);
  });

  it('when the text differs too, then the text is still named', () => {
    const other = { ...untimed, event: { ...untimed.event, content: { text: 'bye' } } };
    expect(compare(base, other)).toEqual(['event.content.text']);
  });
});

describe('an entry kept as one hash of the whole write', () => {
  // How entries were kept before fields were: they still replay until they expire.
  const wholeHash = (body: WriteRequest, eventId: string) => {
    const { idempotency_key: _k, operation: _o, ...rest } = body;
    const sorted = (v: unknown): unknown =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
          )
        : v;
    const event = {
      ...rest.event,
      event_id: eventId,
      occurred_at: new Date(rest.event.occurred_at ?? 0).toISOString(),
    };
    return createHash('sha256')
      .update(JSON.stringify(sorted({ ...rest, event })))
      .digest('hex');
  };

  it('when the same write is repeated, then it is the same write', () => {
    expect(differingFields(wholeHash(base, 'e1'), base, 'e1')).toEqual([]);
  });

  it('when anything differs, then the event is named as a whole', () => {
    const changed = { ...base, namespace: 'other' };
    expect(differingFields(wholeHash(base, 'e1'), changed, 'e1')).toEqual(['event']);
  });
});
