import { AppError, LIMITS, type WriteResponse } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { type BatchItemAnswer, batchState, countItems } from '../src/domain/data-plane/write-batch-reply.js';
import { readWriteBatch } from '../src/domain/data-plane/write-memory-batch.js';

const event = (text: string) => ({ occurred_at: '2026-11-22T09:00:00Z', content: { text } });
const batch = (items: unknown) => ({ contract_version: 'v1', namespace: 'notes', items });

/** What `attempt` threw, for a whole-response assertion. */
function thrownBy(attempt: () => unknown): unknown {
  try {
    attempt();
  } catch (err) {
    return err;
  }
  throw new Error('did not throw');
}

describe('readWriteBatch', () => {
  it('when some items are bad, then each bad one is its own 400 at items[i] and the good ones are kept, in order', () => {
    const read = readWriteBatch(
      batch([
        { idempotency_key: 'k-0', event: event('fine') },
        { idempotency_key: 'k-1', event: { ...event(' '), tags: ['x'] } },
        'not an item',
        { event: event('no key') },
        { idempotency_key: 'k-4', event: event('nul \u0000 inside') },
      ]),
    );

    expect(read.namespace).toBe('notes');
    expect(read.items[0]).toEqual({ item: { idempotency_key: 'k-0', event: event('fine') } });
    const fieldsOf = (i: number) => {
      const entry = read.items[i] as { error: AppError };
      expect(entry.error).toBeInstanceOf(AppError);
      expect(entry.error).toMatchObject({ code: 'validation_failed', status: 400 });
      return entry.error.fields?.map((f) => f.path).sort();
    };
    expect(fieldsOf(1)).toEqual(['items[1].event.content.text', 'items[1].event.tags']);
    expect(fieldsOf(2)).toEqual(['items[2]']);
    expect(fieldsOf(3)).toEqual(['items[3].idempotency_key']);
    expect(fieldsOf(4)).toEqual(['items[4].event.content.text']);
  });

  it.each([
    ['not an object', [], '(body)'],
    ['items missing', { contract_version: 'v1', namespace: 'notes' }, 'items'],
    ['no items', batch([]), 'items'],
    ['one item too many', batch(Array.from({ length: LIMITS.writeBatchMaxItems + 1 }, () => ({}))), 'items'],
    ['a field of its own', { ...batch([{}]), idempotency_key: 'k' }, 'idempotency_key'],
    ['a NUL in the namespace', { ...batch([{}]), namespace: 'a\u0000b' }, 'namespace'],
  ])('when the envelope has %s, then the whole batch is one 400 naming %s', (_what, body, path) => {
    expect(thrownBy(() => readWriteBatch(body))).toMatchObject({
      code: 'validation_failed',
      fields: [expect.objectContaining({ path })],
    });
  });
});

describe('countItems and batchState', () => {
  const ok = (state: 'retained' | 'not_retained', outcome: 'Accepted' | 'Replayed') => ({
    ok: { state, idempotency_outcome: outcome } as WriteResponse,
  });
  const failed = (code: ConstructorParameters<typeof AppError>[0]) => ({ error: new AppError(code, 'x') });

  it('when items were answered every way, then each is counted once by its outcome', () => {
    const answers: BatchItemAnswer[] = [
      ok('retained', 'Accepted'),
      ok('retained', 'Replayed'),
      failed('idempotency_conflict'),
      failed('duplicate_event'),
      failed('validation_failed'),
      failed('idempotency_in_flight'),
    ];

    expect(countItems(answers)).toEqual({
      total: 6,
      accepted: 1,
      replayed: 1,
      conflict: 2,
      invalid: 1,
      failed: 1,
    });
    expect(batchState(answers)).toBe('retained');
  });

  it('when nothing was retained, then not_retained if an item was answered 200, else no_data', () => {
    expect(batchState([ok('not_retained', 'Accepted'), failed('validation_failed')])).toBe('not_retained');
    expect(batchState([failed('validation_failed')])).toBe('no_data');
  });
});
