import { AppError, ErrorCode } from '@tm/contracts';
import { createFairSlots } from '@tm/kit';

export interface HashingSlotSettings {
  /** Hashes run at once, all sources together. */
  concurrency: number;
  /** Hashes that may wait for a slot, all sources together; one more is refused at once (503). */
  maxWaiting: number;
  /** Hashes one source (a client address) may hold at once, running or waiting; one more is a 429. */
  perSource: number;
  /** The longest a hash waits for a slot before it is refused. */
  maxWaitMs: number;
}

/**
 * Half of libuv's default pool of 4 threads; a wait of about 4 hashes (~0.4 s) before a 503; one
 * source holds one running and two waiting (~0.3 s), room for a few people behind one office NAT.
 * The one source of the defaults: the gateway's PASSWORD_HASH_* settings default to these.
 */
export const DEFAULT_HASHING_SLOTS: HashingSlotSettings = {
  concurrency: 2,
  maxWaiting: 8,
  perSource: 3,
  maxWaitMs: 2_000,
};

/** Retryable: the same request succeeds once the hashes ahead of it are done. */
export const hashingBusy = () =>
  new AppError(
    ErrorCode.ServiceUnavailable,
    'Too many passwords are being checked right now; retry in a moment',
    { retryAfter: 1 },
  );

/** One address sent more at once than it may hold: its own flood, refused before it queues. */
export const sourceBusy = () =>
  new AppError(
    ErrorCode.RateLimited,
    'Too many passwords are being checked for this address right now; retry in a moment',
    { retryAfter: 1 },
  );

/**
 * A semaphore for password hashing, fair between sources. scrypt runs on libuv's thread pool (4
 * threads by default), which file reads (the console's static files) and DNS share: 4 failed logins
 * a second with scrypt on every thread raised static files from 25 ms to 2.7 s and other users'
 * logins from 0.4 to 0.9 s. With fewer hashes at once than threads, the rest of the pool stays free;
 * excess waits briefly in a bounded queue, then is refused with a retryable 503.
 *
 * Shared by every source alone, 30 failed logins at once from one address filled the queue: the
 * owner's login from another address got 503, and on 2 cores a recall slowed from 0.01 to 0.71 s.
 * So a source runs one hash at a time (on 2 cores its flood keeps to one), holds at most `perSource`
 * (the rest is its own 429), and a freed slot goes round the waiting sources in turn, not first come
 * (libs/kit's fair slots).
 */
export function createHashingSlots(settings: HashingSlotSettings) {
  const slots = createFairSlots(
    {
      concurrency: settings.concurrency,
      perSourceRunning: 1,
      perSourceHeld: settings.perSource,
      maxWaiting: settings.maxWaiting,
      maxWaitMs: settings.maxWaitMs,
    },
    { source: sourceBusy, busy: hashingBusy },
  );
  return {
    /**
     * Run one hash in a slot, counted against `source` (a client address's bucket). `mustRun`: wait
     * however long it takes (never refused), for work no client is waiting on to retry.
     */
    run: <T>(hash: () => Promise<T>, options: { source: string; mustRun?: boolean }): Promise<T> =>
      slots.run(hash, options),
    /** Hashes running and waiting, and the sources holding any, for tests. */
    get load() {
      return slots.load;
    },
  };
}
export type HashingSlots = ReturnType<typeof createHashingSlots>;
