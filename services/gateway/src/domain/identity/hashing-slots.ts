import { AppError, ErrorCode } from '@tm/contracts';

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

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout;
}

interface Source {
  running: number;
  waiting: Waiter[];
}

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
 * (the rest is its own 429), and a freed slot goes round the waiting sources in turn, not first come.
 */
export function createHashingSlots(settings: HashingSlotSettings) {
  let running = 0;
  let waitingTotal = 0;
  // Insertion order is the round: a source whose hash ends goes to the back, behind those still waiting.
  const sources = new Map<string, Source>();

  function forget(name: string, source: Source): void {
    if (source.running === 0 && source.waiting.length === 0) sources.delete(name);
  }

  /** To the end of the round: it has just had its turn. */
  function toBack(name: string, source: Source): void {
    sources.delete(name);
    sources.set(name, source);
  }

  /** Start waiters while slots are free, each from the next source in turn that runs nothing now. */
  function dispatch(): void {
    while (running < settings.concurrency) {
      // At most concurrency + maxWaiting sources are held (a refused one is forgotten): a short scan.
      const source = [...sources.values()].find((s) => s.running === 0 && s.waiting.length > 0);
      if (!source) return;
      const waiter = source.waiting.shift() as Waiter;
      waitingTotal--;
      clearTimeout(waiter.timer);
      running++;
      source.running++;
      waiter.start();
    }
  }

  function release(name: string, source: Source): void {
    running--;
    source.running--;
    toBack(name, source);
    forget(name, source);
    dispatch();
  }

  function acquire(name: string, mustRun: boolean): Promise<Source> {
    let source = sources.get(name);
    if (!source) {
      source = { running: 0, waiting: [] };
      sources.set(name, source);
    }
    const held = source;
    if (running < settings.concurrency && held.running === 0) {
      running++;
      held.running++;
      return Promise.resolve(held);
    }
    const refusal = mustRun
      ? undefined
      : held.running + held.waiting.length >= settings.perSource
        ? sourceBusy()
        : waitingTotal >= settings.maxWaiting
          ? hashingBusy()
          : undefined;
    if (refusal) {
      forget(name, held);
      return Promise.reject(refusal);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        start: () => resolve(held),
        timer: setTimeout(() => {
          held.waiting.splice(held.waiting.indexOf(waiter), 1);
          waitingTotal--;
          forget(name, held);
          reject(hashingBusy());
        }, settings.maxWaitMs),
      };
      // An operator's own command (bootstrap) waits its turn without a deadline.
      if (mustRun) clearTimeout(waiter.timer);
      held.waiting.push(waiter);
      waitingTotal++;
    });
  }

  return {
    /**
     * Run one hash in a slot, counted against `source` (a client address's bucket). `mustRun`: wait
     * however long it takes (never refused), for work no client is waiting on to retry.
     */
    async run<T>(hash: () => Promise<T>, options: { source: string; mustRun?: boolean }): Promise<T> {
      const source = await acquire(options.source, options.mustRun ?? false);
      try {
        return await hash();
      } finally {
        release(options.source, source);
      }
    },
    /** Hashes running and waiting, and the sources holding any, for tests. */
    get load() {
      return { running, waiting: waitingTotal, sources: sources.size };
    },
  };
}
export type HashingSlots = ReturnType<typeof createHashingSlots>;
