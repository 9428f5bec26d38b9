import { AppError } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { resolveIdempotencyKey } from '../src/domain/data-plane/idempotency-key.js';

describe('resolveIdempotencyKey', () => {
  it('when only the header or only the body carries a key, then that key is used', () => {
    expect(resolveIdempotencyKey('h-1', undefined)).toBe('h-1');
    expect(resolveIdempotencyKey(undefined, 'b-1')).toBe('b-1');
    expect(resolveIdempotencyKey('same', 'same')).toBe('same');
  });

  it.each([
    ['both differ', 'a', 'b'],
    ['neither is given', undefined, undefined],
    ['the key has spaces', 'has space', undefined],
    ['the key is too long', 'k'.repeat(256), undefined],
  ])('when %s, then a 400 validation error on idempotency_key', (_label, header, body) => {
    const attempt = () => resolveIdempotencyKey(header, body);
    expect(attempt).toThrow(AppError);
    try {
      attempt();
    } catch (err) {
      expect(err).toMatchObject({
        code: 'validation_failed',
        status: 400,
        fields: [{ path: 'idempotency_key' }],
      });
    }
  });
});
