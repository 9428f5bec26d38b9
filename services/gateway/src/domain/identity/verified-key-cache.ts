import type { KeyRecord } from '../../data-access/api-key-repository.js';

export interface VerifiedKeyCacheOptions {
  maxEntries: number;
  /** A safety net for a change made behind the gateway's back (straight in the database). */
  ttlMs: number;
  now?: () => number;
}

/**
 * Keys this instance has looked up, by secret hash, so a busy key costs no database round trip per
 * request. Only keys that exist are kept (random guesses must not fill it). Correctness rests on
 * invalidation: every change to a tenant's keys, storage or consent is broadcast and drops that
 * tenant's entries on every instance before the change is acknowledged, and while this instance cannot
 * hear broadcasts (bus disconnected) it keeps nothing.
 */
export function createVerifiedKeyCache(options: VerifiedKeyCacheOptions) {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { key: KeyRecord; expiresAt: number }>();
  let listening = true;
  // Bumped by every invalidation: a lookup that started before one may have read the old state.
  let generation = 0;
  const clear = () => {
    generation++;
    entries.clear();
  };

  return {
    get(secretHash: string): KeyRecord | undefined {
      const hit = entries.get(secretHash);
      if (!hit) return undefined;
      entries.delete(secretHash);
      if (hit.expiresAt <= now()) return undefined;
      entries.set(secretHash, hit); // most recently used last: Map keeps insertion order
      return hit.key;
    },
    /** Take this before reading the database and hand it to `set`. */
    get generation() {
      return generation;
    },
    set(secretHash: string, key: KeyRecord, readAtGeneration: number): void {
      if (!listening || readAtGeneration !== generation) return;
      entries.delete(secretHash);
      entries.set(secretHash, { key, expiresAt: now() + options.ttlMs });
      if (entries.size > options.maxEntries) entries.delete(entries.keys().next().value as string);
    },
    dropTenant(tenantId: string): void {
      generation++;
      for (const [hash, { key }] of entries) if (key.tenantId === tenantId) entries.delete(hash);
    },
    clear,
    /** Bus down: invalidations could be missed, so forget everything and cache nothing until it is back. */
    stopListening(): void {
      listening = false;
      clear();
    },
    startListening(): void {
      listening = true;
    },
    get size() {
      return entries.size;
    },
  };
}
export type VerifiedKeyCache = ReturnType<typeof createVerifiedKeyCache>;
