import type { AppError } from '@tm/contracts';

export interface FairSlotSettings {
  /** Slots in all, every source together. */
  concurrency: number;
  /** Slots one source may have running at once. */
  perSourceRunning: number;
  /** Work one source may hold, running and waiting; one more is refused at once (`refusals.source`). */
  perSourceHeld: number;
  /** Work that may wait, all sources together; one more is refused at once (`refusals.busy`). */
  maxWaiting: number;
  /** The longest a piece of work waits for a slot before it is refused (`refusals.waitedTooLong`). */
  maxWaitMs: number;
}

export interface FairSlotRefusals {
  /** The source already holds its share: its own excess (a 429). */
  source: () => AppError;
  /** The queue of all sources together is full: the instance's capacity (a 503). */
  busy: () => AppError;
  /**
   * A wait ran out. `ownShare`: its source still ran its whole share then, so it waited behind its
   * own work. Unset, it is `busy`.
   */
  waitedTooLong?: (ownShare: boolean) => AppError;
}

export interface FairSlotRun {
  /** Whose work it is (a client address, a tenant): the unit that is served in turn. */
  source: string;
  /**
   * Slots it takes, for work that costs more than the rest (at most `perSourceRunning`, so that it can
   * always run once its source runs nothing else). 1 by default.
   */
  cost?: number;
  /** Wait however long it takes, never refused: work no client is waiting on to retry. */
  mustRun?: boolean;
  /**
   * How long its slots stay taken after it ends, from how long it ran: its result is returned at once,
   * and its source's next work waits that much longer, so costly work is paced by its own cost.
   */
  holdAfter?: (ranMs: number) => number;
}

interface Waiter {
  cost: number;
  start: () => void;
  timer: NodeJS.Timeout | undefined;
}

interface Source {
  /** Slots its running work takes. */
  running: number;
  /** Its pieces of work running (each counts once against `perSourceHeld`, whatever its cost). */
  jobs: number;
  waiting: Waiter[];
}

/**
 * A semaphore fair between sources: at most `concurrency` slots in use, at most `perSourceRunning` of
 * them by one source, and a freed slot goes round the waiting sources in turn, not first come. So one
 * source's flood runs its share and waits (or is refused) behind it, while another source's work takes
 * a free slot at once. Excess is refused up front with the caller's retryable errors, never queued
 * without bound; a wait is bounded too.
 */
export function createFairSlots(settings: FairSlotSettings, refusals: FairSlotRefusals) {
  let running = 0;
  let waitingTotal = 0;
  // Insertion order is the round: a source whose work ends goes to the back, behind those still waiting.
  const sources = new Map<string, Source>();
  const waitedTooLong = refusals.waitedTooLong ?? (() => refusals.busy());

  function forget(name: string, source: Source): void {
    if (source.running === 0 && source.waiting.length === 0) sources.delete(name);
  }

  /** To the end of the round: it has just had its turn. */
  function toBack(name: string, source: Source): void {
    sources.delete(name);
    sources.set(name, source);
  }

  const fitsSource = (source: Source, cost: number) => source.running + cost <= settings.perSourceRunning;

  function begin(source: Source, cost: number): void {
    running += cost;
    source.running += cost;
    source.jobs++;
  }

  /** The next source in turn whose first waiter has room in its share. */
  const nextInTurn = () =>
    [...sources.values()].find((s) => s.waiting.length > 0 && fitsSource(s, (s.waiting[0] as Waiter).cost));

  /**
   * Start waiters while slots are free, each from the next source in turn with room in its share. If
   * that one's work does not fit the free slots, nothing behind it starts: the slots are kept for it,
   * so costly work is not passed over for ever by cheaper work that keeps fitting.
   */
  function dispatch(): void {
    while (running < settings.concurrency) {
      // At most concurrency + maxWaiting sources are held (a refused one is forgotten): a short scan.
      const source = nextInTurn();
      if (!source) return;
      const waiter = source.waiting[0] as Waiter;
      if (running + waiter.cost > settings.concurrency) return;
      source.waiting.shift();
      waitingTotal--;
      clearTimeout(waiter.timer);
      begin(source, waiter.cost);
      waiter.start();
    }
  }

  function release(name: string, source: Source, cost: number): void {
    running -= cost;
    source.running -= cost;
    source.jobs--;
    toBack(name, source);
    forget(name, source);
    dispatch();
  }

  function acquire(name: string, cost: number, mustRun: boolean): Promise<Source> {
    let source = sources.get(name);
    if (!source) {
      source = { running: 0, jobs: 0, waiting: [] };
      sources.set(name, source);
    }
    const held = source;
    // Straight in only past nobody whose turn it is (they wait only for slots to free up).
    const free =
      held.waiting.length === 0 && fitsSource(held, cost) && running + cost <= settings.concurrency;
    if (free && nextInTurn() === undefined) {
      begin(held, cost);
      return Promise.resolve(held);
    }
    const refusal = mustRun
      ? undefined
      : held.jobs + held.waiting.length >= settings.perSourceHeld
        ? refusals.source()
        : waitingTotal >= settings.maxWaiting
          ? refusals.busy()
          : undefined;
    if (refusal) {
      forget(name, held);
      return Promise.reject(refusal);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        cost,
        start: () => resolve(held),
        // An operator's own command (bootstrap) waits its turn without a deadline.
        timer: mustRun
          ? undefined
          : setTimeout(() => {
              const ownShare = !fitsSource(held, cost);
              held.waiting.splice(held.waiting.indexOf(waiter), 1);
              waitingTotal--;
              forget(name, held);
              reject(waitedTooLong(ownShare));
              // The head of its source's queue may have been held back by it.
              dispatch();
            }, settings.maxWaitMs),
      };
      held.waiting.push(waiter);
      waitingTotal++;
    });
  }

  return {
    /** Run `work` in a slot counted against `options.source`; refused (rejected) when it may not wait. */
    async run<T>(work: () => Promise<T>, options: FairSlotRun): Promise<T> {
      const cost = Math.min(Math.max(1, options.cost ?? 1), settings.perSourceRunning, settings.concurrency);
      const source = await acquire(options.source, cost, options.mustRun ?? false);
      const started = performance.now();
      try {
        return await work();
      } finally {
        const holdMs = options.holdAfter?.(performance.now() - started) ?? 0;
        if (holdMs > 0) setTimeout(() => release(options.source, source, cost), holdMs).unref();
        else release(options.source, source, cost);
      }
    },
    /** Slots in use, work waiting, and the sources holding any, for tests and metrics. */
    get load() {
      return { running, waiting: waitingTotal, sources: sources.size };
    },
  };
}
export type FairSlots = ReturnType<typeof createFairSlots>;
