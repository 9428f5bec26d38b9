export interface RememberedRefusalsOptions {
  /** Buckets remembered at once; past it the oldest is forgotten (its next attempt asks the store). */
  maxEntries: number;
  /**
   * How long a refusal is repeated without asking the store again; 0 remembers nothing. It bounds how
   * long this instance can miss a reset another instance made (a success that cleared an account).
   */
  rememberMs: number;
  now?: () => number;
}

interface Refusal {
  /** When the store's window ends: what Retry-After counts down to. */
  windowEndsAtMs: number;
  /** When this instance asks the store again. */
  recheckAtMs: number;
}

/**
 * Password-attempt buckets the shared counter store has refused for this instance, so that the next
 * attempts for them are refused at once, without a round trip. The store stays the authority: this
 * only repeats a refusal it gave, never past its window nor past `rememberMs`, and forgets a bucket
 * as soon as this instance lowers its count (a success, an attempt given back). A refused attempt
 * would only have raised a count already past its limit, which no one reads but to refuse again.
 *
 * `generation` guards the race with `forget`: an answer read before a forget may predate the
 * reset, so `remember` takes the generation seen before asking and drops a stale one.
 */
export function createRememberedRefusals(options: RememberedRefusalsOptions) {
  const now = options.now ?? Date.now;
  const refusals = new Map<string, Refusal>();
  let generation = 0;

  return {
    /** Take this before asking the store, and hand it to `remember` with the answer. */
    get generation() {
      return generation;
    },
    remember(bucket: string, windowEndsAtMs: number, askedAtGeneration: number): void {
      if (options.rememberMs <= 0 || askedAtGeneration !== generation) return;
      const t = now();
      if (windowEndsAtMs <= t) return;
      refusals.delete(bucket); // re-inserted last: Map keeps insertion order, oldest first
      refusals.set(bucket, { windowEndsAtMs, recheckAtMs: Math.min(windowEndsAtMs, t + options.rememberMs) });
      if (refusals.size > options.maxEntries) refusals.delete(refusals.keys().next().value as string);
    },
    /** The end of the bucket's refused window, if this instance may still repeat the refusal. */
    refusedUntil(bucket: string): number | undefined {
      const refusal = refusals.get(bucket);
      if (!refusal) return undefined;
      if (refusal.recheckAtMs <= now()) {
        refusals.delete(bucket);
        return undefined;
      }
      return refusal.windowEndsAtMs;
    },
    forget(bucket: string): void {
      generation++;
      refusals.delete(bucket);
    },
    get size() {
      return refusals.size;
    },
  };
}
export type RememberedRefusals = ReturnType<typeof createRememberedRefusals>;
