import { createPerTurnBatcher, poolRunner, type SqlRunner } from '@tm/kit';
import type pg from 'pg';
import {
  type ClaimOutcome,
  claimAndRetain,
  claimAndRetainOne,
  type RetainInput,
} from './idempotency-ledger.js';
import { getPool } from './prisma-client.js';

/** Writes that arrive in the same turn of the event loop share one statement, up to this many. */
const MAX_BATCH = 64;
/**
 * A write with more postings than this has a statement of its own: a long text's thousands of
 * postings made every other tenant's write that shared its turn wait for them (a 32,768-character
 * item of distinct words is about 5,400). An ordinary note has a few dozen.
 */
const SHARED_MAX_TERMS = 256;

interface Pending {
  input: RetainInput;
  resolve: (outcome: ClaimOutcome) => void;
  reject: (err: unknown) => void;
}

/**
 * The write path's claimAndRetain, batched: concurrent writes are gathered for one turn of the event
 * loop and retained in one statement (measured: a BEGIN and a COMMIT round trip around it made a
 * batch take a third longer under load, and the writes in it waited that long). The outcome of each
 * write is exactly that of claimAndRetain: claimed, or not claimed (its key is taken: the caller
 * replays). If the batch fails (a taken event id, or anything else), each write goes again on its own
 * statement, so one bad write cannot fail the others.
 */
export function createWriteBatcher(run: SqlRunner) {
  const runAlone = (p: Pending) => claimAndRetainOne(run, p.input).then(p.resolve, p.reject);

  const runBatch = async (pending: Pending[]) => {
    // A key twice in one batch (a client retrying while its first call is in flight): the later ones
    // wait for the batch, then find the key taken and replay, exactly as they would on their own.
    const seen = new Set<string>();
    const batch: Pending[] = [];
    const later: Pending[] = [];
    for (const p of pending) {
      const id = `${p.input.record.tenantId}\u0000${p.input.idempotency.key}`;
      (seen.has(id) ? later : batch).push(p);
      seen.add(id);
    }
    await runUnique(batch);
    await Promise.all(later.map(runAlone));
  };

  const runUnique = async (batch: Pending[]) => {
    if (batch.length === 1) return runAlone(batch[0] as Pending);
    let outcomes: Array<{ n: number } & ClaimOutcome>;
    try {
      outcomes = await claimAndRetain(
        run,
        batch.map((p) => p.input),
      );
    } catch {
      await Promise.all(batch.map(runAlone));
      return;
    }
    for (const o of outcomes) (batch[o.n - 1] as Pending).resolve({ claimed: o.claimed, fenced: o.fenced });
  };

  const add = createPerTurnBatcher<Pending>({ maxItems: MAX_BATCH, flush: (batch) => void runBatch(batch) });

  return (input: RetainInput) =>
    new Promise<ClaimOutcome>((resolve, reject) => {
      const pending = { input, resolve, reject };
      if (input.record.terms.length > SHARED_MAX_TERMS) void runAlone(pending);
      else add(pending);
    });
}

const batchers = new WeakMap<pg.Pool, ReturnType<typeof createWriteBatcher>>();

/** A plain write's claim-and-retain, gathered with the other writes of this turn on the current pool. */
export function retainBatched(input: RetainInput) {
  const pool = getPool();
  let batcher = batchers.get(pool);
  if (!batcher) {
    batcher = createWriteBatcher(poolRunner(pool));
    batchers.set(pool, batcher);
  }
  return batcher(input);
}
