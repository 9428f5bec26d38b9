import { createPerTurnCoalescer, poolRunner, type SqlRunner } from '@tm/kit';
import type pg from 'pg';
import {
  type ClaimOutcome,
  claimAndRetain,
  claimAndRetainOne,
  type RetainInput,
} from './idempotency-ledger.js';
import { getPool } from './prisma-client.js';

/** Writes that arrive in the same turn of the event loop share one statement, up to this many. */
const MAX_WRITES_PER_STATEMENT = 64;
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
 * The write path's claimAndRetain, with statements shared: concurrent writes are gathered for one turn
 * of the event loop and retained in one statement (measured: a BEGIN and a COMMIT round trip around it
 * made a shared statement take a third longer under load, and the writes in it waited that long). The
 * outcome of each write is exactly that of claimAndRetain: claimed, or not claimed (its key is taken:
 * the caller replays). If the shared statement fails (a taken event id, or anything else), each write
 * goes again on its own statement, so one bad write cannot fail the others.
 */
export function createSharedStatements(run: SqlRunner) {
  const runAlone = (p: Pending) => claimAndRetainOne(run, p.input).then(p.resolve, p.reject);

  const runTurn = async (pending: Pending[]) => {
    // A key twice in one turn (a client retrying while its first call is in flight): the later ones
    // wait for the shared statement, then find the key taken and replay, exactly as they would on
    // their own.
    const seen = new Set<string>();
    const shared: Pending[] = [];
    const later: Pending[] = [];
    for (const p of pending) {
      const id = `${p.input.record.tenantId}\u0000${p.input.idempotency.key}`;
      (seen.has(id) ? later : shared).push(p);
      seen.add(id);
    }
    await runShared(shared);
    await Promise.all(later.map(runAlone));
  };

  const runShared = async (shared: Pending[]) => {
    if (shared.length === 1) return runAlone(shared[0] as Pending);
    let outcomes: Array<{ n: number } & ClaimOutcome>;
    try {
      outcomes = await claimAndRetain(
        run,
        shared.map((p) => p.input),
      );
    } catch {
      await Promise.all(shared.map(runAlone));
      return;
    }
    for (const o of outcomes) (shared[o.n - 1] as Pending).resolve({ claimed: o.claimed, fenced: o.fenced });
  };

  const add = createPerTurnCoalescer<Pending>({
    maxItems: MAX_WRITES_PER_STATEMENT,
    flush: (pending) => void runTurn(pending),
  });

  return (input: RetainInput) =>
    new Promise<ClaimOutcome>((resolve, reject) => {
      const pending = { input, resolve, reject };
      if (input.record.terms.length > SHARED_MAX_TERMS) void runAlone(pending);
      else add(pending);
    });
}

const byPool = new WeakMap<pg.Pool, ReturnType<typeof createSharedStatements>>();

/** A plain write's claim-and-retain, sharing a statement with this turn's other writes on the current pool. */
export function retainInSharedStatement(input: RetainInput) {
  const pool = getPool();
  let retain = byPool.get(pool);
  if (!retain) {
    retain = createSharedStatements(poolRunner(pool));
    byPool.set(pool, retain);
  }
  return retain(input);
}
