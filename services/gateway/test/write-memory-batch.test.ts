import { AppError, LIMITS } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
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
