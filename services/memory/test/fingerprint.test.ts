import type { WriteRequest } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { fingerprintWrite } from '../src/domain/fingerprint.js';

const base: WriteRequest = {
  contract_version: 'v1',
  namespace: 'notes',
  event: {
    occurred_at: '2026-11-22T09:00:00Z',
    content: { text: 'hello' },
    source: { type: 'direct_user_input', id: 's1' },
  },
};

describe('fingerprintWrite', () => {
  it('when only key order, the idempotency key or the spelling of the same instant differ, then fingerprints match', () => {
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
  });

  it.each([
    ['text', { ...base, event: { ...base.event, content: { text: 'hello!' } } }],
    ['namespace', { ...base, namespace: 'other' }],
    ['event time', { ...base, event: { ...base.event, occurred_at: '2026-11-22T09:00:01Z' } }],
    ['source', { ...base, event: { ...base.event, source: { type: 'direct_user_input', id: 's2' } } }],
    ['supersedes', { ...base, event: { ...base.event, supersedes: ['e0'] } }],
  ] as Array<[string, WriteRequest]>)(
    'when the %s differs, then the fingerprint differs',
    (_label, changed) => {
      expect(fingerprintWrite(changed, 'e1')).not.toBe(fingerprintWrite(base, 'e1'));
    },
  );

  it('when the event id differs, then the fingerprint differs', () => {
    expect(fingerprintWrite(base, 'e2')).not.toBe(fingerprintWrite(base, 'e1'));
  });
});
