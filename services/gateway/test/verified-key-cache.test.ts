import { describe, expect, it } from 'vitest';
import type { KeyRecord } from '../src/data-access/api-key-repository.js';
import { createVerifiedKeyCache } from '../src/domain/identity/verified-key-cache.js';

const key = (id: string, tenantId = 'tenant-a'): KeyRecord => ({
  id,
  tenantId,
  userId: 'user',
  revokedAt: null,
  permissions: ['memory:write'],
  userActive: true,
  userRole: 'developer',
  storageId: 'storage',
  storageKind: 'managed',
  storageStatus: 'active',
  consent: 'granted',
});

function cache(options: { maxEntries?: number; ttlMs?: number } = {}) {
  let now = 0;
  const c = createVerifiedKeyCache({ maxEntries: 3, ttlMs: 1_000, ...options, now: () => now });
  return { c, advance: (ms: number) => (now += ms) };
}

describe('verified key cache', () => {
  it('when a key was stored, then it is served until its TTL runs out', () => {
    const { c, advance } = cache();
    c.set('h1', key('k1'), c.generation);

    expect(c.get('h1')?.id).toBe('k1');
    advance(1_000);
    expect(c.get('h1')).toBeUndefined();
  });

  it('when a tenant changes, then only its keys are dropped', () => {
    const { c } = cache();
    c.set('a', key('k1', 'tenant-a'), c.generation);
    c.set('b', key('k2', 'tenant-b'), c.generation);

    c.dropTenant('tenant-a');

    expect(c.get('a')).toBeUndefined();
    expect(c.get('b')?.id).toBe('k2');
  });

  it('when a change arrives while a lookup is in flight, then the lookup result is not stored', () => {
    const { c } = cache();
    const before = c.generation;

    c.dropTenant('tenant-a'); // the revocation lands between the database read and the store
    c.set('h1', key('k1'), before);

    expect(c.get('h1')).toBeUndefined();
  });

  it('when the cache is full, then the least recently used key goes first', () => {
    const { c } = cache({ maxEntries: 2 });
    c.set('a', key('a'), c.generation);
    c.set('b', key('b'), c.generation);
    c.get('a');

    c.set('c', key('c'), c.generation);

    expect([c.get('a')?.id, c.get('b')?.id, c.get('c')?.id]).toEqual(['a', undefined, 'c']);
  });

  it('when the bus is down, then nothing is kept until it is back', () => {
    const { c } = cache();
    c.set('a', key('a'), c.generation);

    c.stopListening();
    c.set('b', key('b'), c.generation);
    expect([c.get('a'), c.get('b'), c.size]).toEqual([undefined, undefined, 0]);

    c.startListening();
    c.set('b', key('b'), c.generation);
    expect(c.get('b')?.id).toBe('b');
  });
});
