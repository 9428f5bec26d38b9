import { AppError, ErrorCode } from '@tm/contracts';

export interface HashingSlotSettings {
  /** Hashes run at once. */
  concurrency: number;
  /** Hashes that may wait for a slot; one more is refused at once. */
  maxWaiting: number;
  /** The longest a hash waits for a slot before it is refused. */
  maxWaitMs: number;
}

/**
 * Half of libuv's default pool of 4 threads; a wait of about 4 hashes (~0.4 s) before a 503. The one
 * source of the defaults: the gateway's PASSWORD_HASH_* settings default to these.
 */
export const DEFAULT_HASHING_SLOTS: HashingSlotSettings = { concurrency: 2, maxWaiting: 8, maxWaitMs: 2_000 };

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout;
}

/** Retryable: the same request succeeds once the hashes ahead of it are done. */
export const hashingBusy = () =>
  new AppError(
    ErrorCode.ServiceUnavailable,
    'Too many passwords are being checked right now; retry in a moment',
    { retryAfter: 1 },
  );

/**
 * A semaphore for password hashing. scrypt runs on libuv's thread pool (4 threads by default), which
 * file reads (the console's static files) and DNS share: 4 failed logins a second with scrypt on
 * every thread raised static files from 25 ms to 2.7 s and other users' logins from 0.4 to 0.9 s
 * ([P14]). With fewer hashes at once than threads, the rest of the pool stays free; excess waits
 * briefly in a bounded queue, then is refused with a retryable 503 rather than piling up.
 */
export function createHashingSlots(settings: HashingSlotSettings) {
  let running = 0;
  const waiting: Waiter[] = [];

  function release(): void {
    const next = waiting.shift();
    if (next) {
      clearTimeout(next.timer);
      next.start(); // the slot passes straight to the next waiter
    } else {
      running--;
    }
  }

  function acquire(mustRun: boolean): Promise<void> {
    if (running < settings.concurrency) {
      running++;
      return Promise.resolve();
    }
    if (!mustRun && waiting.length >= settings.maxWaiting) return Promise.reject(hashingBusy());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        start: resolve,
        timer: setTimeout(() => {
          waiting.splice(waiting.indexOf(waiter), 1);
          reject(hashingBusy());
        }, settings.maxWaitMs),
      };
      // An operator's own command (bootstrap) waits its turn without a deadline.
      if (mustRun) clearTimeout(waiter.timer);
      waiting.push(waiter);
    });
  }

  return {
    /**
     * Run one hash in a slot. `mustRun`: wait however long it takes (never refused), for work no
     * client is waiting on to retry.
     */
    async run<T>(hash: () => Promise<T>, options: { mustRun?: boolean } = {}): Promise<T> {
      await acquire(options.mustRun ?? false);
      try {
        return await hash();
      } finally {
        release();
      }
    },
    /** Hashes running and waiting, for tests. */
    get load() {
      return { running, waiting: waiting.length };
    },
  };
}
export type HashingSlots = ReturnType<typeof createHashingSlots>;
