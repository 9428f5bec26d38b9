import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, ErrorCode } from '@tm/contracts';
import type { Logger, SqlRunner } from '@tm/kit';
import {
  addToCounters,
  type CounterTotal,
  deleteCounter,
  deleteExpiredCounters,
  takeOneFromCounter,
} from '../../data-access/rate-limit-counter-repository.js';
import { addressBucketOf } from '../identity/address-bucket.js';
import { createRememberedRefusals } from './remembered-refusals.js';

export interface RateLimitSettings {
  windowSeconds: number;
  perKey: number;
  perTenant: number;
  /**
   * Long-text characters (past the first 1,024 of each item: write-cost.ts) a tenant's writes may
   * carry per `textWindowSeconds`: what a write costs downstream is its postings, not its count.
   */
  textCharsPerTenant: number;
  textWindowSeconds: number;
  /** Failed password checks per account (an email at login, a user at a password change). */
  loginAttemptsPer15Minutes: number;
  /** Failed password checks per client address, logins and password changes together. */
  loginAttemptsPerAddressPer15Minutes: number;
  /**
   * How long this instance repeats a refusal of a remembered limit (password attempts, a tenant's text
   * budget) without asking the store (0: never).
   */
  refusalMemoryMs: number;
  /** How long a refusal repeated from memory waits before it is answered, at most its Retry-After. */
  refusalPauseMs: number;
}

/** One password check: the account it is for (`email:…` or `user:…`) and the client's address. */
export interface PasswordAttempt {
  account: string;
  address: string;
}

interface Limit {
  /** What is counted, e.g. `cred:k:<key id>`. */
  bucket: string;
  limit: number;
  windowSeconds: number;
  /** What a refusal says, given the seconds until the window ends. */
  refusal: (retryAfterSeconds: number) => string;
  /**
   * Whether this instance may repeat the store's refusal until it asks again (remembered-refusals.ts):
   * only for a count of one point per attempt, where past the limit every attempt is refused alike.
   */
  remembered?: true;
}

interface Pending {
  key: string;
  windowMs: number;
  /**
   * One entry per request in this turn, in arrival order, with the points it counts for (1, or a batch
   * write's items); each learns its position in the window: where its last point fell.
   */
  waiters: Array<{ points: number; resolve: (position: number, expiresAtMs: number) => void }>;
}

const LOGIN_WINDOW_SECONDS = 15 * 60;
/** Refused password buckets remembered per instance: about 100 bytes each, so about 1 MB at most. */
const REMEMBERED_REFUSALS_MAX = 10_000;

const pointsOf = (p: Pending) => p.waiters.reduce((sum, w) => sum + w.points, 0);
const CLEANUP_INTERVAL_MS = 5 * 60_000;

/** "3 seconds", "15 minutes": a Retry-After in words for the people reading a refusal. */
function inWords(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}

/**
 * Fixed-window request counters that every gateway instance shares, in PostgreSQL (an UNLOGGED
 * table: counts need no crash safety). A window opens with a bucket's first request. The requests of one event-loop turn are counted together in a
 * single statement, so a limit costs one small round trip per turn rather than two per request (a
 * per-request limiter measured 1.2 ms of CPU per request here, 40 % of write throughput). Each
 * request learns its own position in the window, so the limit is exact across instances.
 *
 * If the counter store fails, each instance counts in its own memory until it is back: limits then
 * hold per instance rather than not at all, and requests keep flowing.
 */
export function createRateLimits(
  run: SqlRunner,
  settings: RateLimitSettings,
  logger: Logger,
  now: () => number = Date.now,
  pause: (ms: number) => Promise<unknown> = sleep,
) {
  let pending = new Map<string, Pending>();
  const fallback = new Map<string, CounterTotal>();
  let warnedAt = 0;
  const remembered = createRememberedRefusals({
    maxEntries: REMEMBERED_REFUSALS_MAX,
    rememberMs: settings.refusalMemoryMs,
    now,
  });

  async function flush(batch: Map<string, Pending>): Promise<void> {
    const counters = [...batch.values()].map((p) => ({
      key: p.key,
      points: pointsOf(p),
      windowMs: p.windowMs,
    }));
    let totals: Map<string, CounterTotal>;
    try {
      totals = await addToCounters(run, counters, now());
    } catch (err) {
      if (now() - warnedAt > 60_000) {
        warnedAt = now();
        logger.warn({ err }, 'rate-limit store unavailable; counting per instance');
      }
      totals = countLocally(counters);
    }
    for (const p of batch.values()) {
      const added = pointsOf(p);
      const total = totals.get(p.key) ?? { points: added, expiresAtMs: now() + p.windowMs };
      let position = total.points - added;
      for (const waiter of p.waiters) {
        position += waiter.points;
        waiter.resolve(position, total.expiresAtMs);
      }
    }
  }

  function countLocally(counters: Array<{ key: string; points: number; windowMs: number }>) {
    const t = now();
    for (const [key, c] of fallback) if (c.expiresAtMs <= t) fallback.delete(key);
    return new Map(
      counters.map((c) => {
        const entry = fallback.get(c.key) ?? { points: 0, expiresAtMs: t + c.windowMs };
        entry.points += c.points;
        fallback.set(c.key, entry);
        return [c.key, { ...entry }];
      }),
    );
  }

  /**
   * This request's position in the limit's current window (1 = first; its last point, when it counts
   * for more than one), counted with its turn's peers.
   */
  function take(limit: Limit, points = 1): Promise<{ position: number; retryAfterMs: number }> {
    const key = limit.bucket;
    if (pending.size === 0) {
      setImmediate(() => {
        const batch = pending;
        pending = new Map();
        void flush(batch);
      });
    }
    let entry = pending.get(key);
    if (!entry) {
      entry = { key, windowMs: limit.windowSeconds * 1000, waiters: [] };
      pending.set(key, entry);
    }
    const { waiters } = entry;
    return new Promise((resolve) => {
      waiters.push({
        points,
        resolve: (position, expiresAtMs) => resolve({ position, retryAfterMs: expiresAtMs - now() }),
      });
    });
  }

  /** The refusal of the limits past theirs, with the longest wait among them; none: nothing. */
  function refuse(over: Array<{ limit: Limit; retryAfterMs: number }>): void {
    const first = over[0];
    if (first) {
      const retryAfter = Math.max(1, Math.ceil(Math.max(...over.map((o) => o.retryAfterMs)) / 1000));
      throw new AppError(ErrorCode.RateLimited, first.limit.refusal(retryAfter), { retryAfter });
    }
  }

  /**
   * Refuse when this instance remembers a refusal for any of the limits: nothing is counted, as a count
   * past its limit only refuses again (remembered-refusals.ts). The caller came back before its
   * Retry-After, so the answer waits `refusalPauseMs` first: a loop that ignores Retry-After then
   * costs one refusal per connection per pause, not as many as the gateway can answer.
   */
  async function refuseRemembered(limits: Limit[]): Promise<void> {
    const t = now();
    const over = limits.flatMap((limit) => {
      const until = limit.remembered && remembered.refusedUntil(limit.bucket);
      return until ? [{ limit, retryAfterMs: until - t }] : [];
    });
    if (over.length === 0) return;
    const pauseMs = Math.min(settings.refusalPauseMs, ...over.map((o) => o.retryAfterMs));
    if (pauseMs > 0) await pause(pauseMs);
    refuse(over);
  }

  /** Take each limit's points (one turn, one round trip for all), and refuse if any is past its limit. */
  async function enforce(limits: Array<{ limit: Limit; points: number }>): Promise<void> {
    const generation = remembered.generation;
    const taken = await Promise.all(limits.map(({ limit, points }) => take(limit, points)));
    const over = limits.flatMap(({ limit }, i) => {
      const t = taken[i] as { position: number; retryAfterMs: number };
      return t.position > limit.limit ? [{ limit, retryAfterMs: t.retryAfterMs }] : [];
    });
    for (const { limit, retryAfterMs } of over) {
      if (limit.remembered) remembered.remember(limit.bucket, now() + retryAfterMs, generation);
    }
    refuse(over);
  }

  /** Best effort: a count not given back only ends with its window. */
  async function giveBack(bucket: string, action: (run: SqlRunner, key: string) => Promise<void>) {
    const local = fallback.get(bucket);
    if (local) local.points = Math.max(0, local.points - 1);
    try {
      await action(run, bucket);
    } catch (err) {
      if (now() - warnedAt > 60_000) {
        warnedAt = now();
        logger.warn({ err }, 'rate-limit store unavailable; a password attempt stays counted');
      }
    } finally {
      // The count went down, which may reopen the bucket: the store decides its next attempt. After
      // the change, so that no answer read before it is remembered (the generation drops those).
      remembered.forget(bucket);
    }
  }

  const cleanup = setInterval(() => {
    deleteExpiredCounters(run, now() - 60_000).catch(() => undefined); // next round will try again
  }, CLEANUP_INTERVAL_MS);
  cleanup.unref();

  const accountLimit = (account: string): Limit => ({
    bucket: `password:${account}`,
    limit: settings.loginAttemptsPer15Minutes,
    windowSeconds: LOGIN_WINDOW_SECONDS,
    refusal: (s) => `Too many failed password attempts for this account; try again in ${inWords(s)}`,
    remembered: true,
  });
  const addressLimit = (address: string): Limit => ({
    bucket: `password-from:${addressBucketOf(address)}`,
    limit: settings.loginAttemptsPerAddressPer15Minutes,
    windowSeconds: LOGIN_WINDOW_SECONDS,
    refusal: (s) => `Too many failed password attempts from this address; try again in ${inWords(s)}`,
    remembered: true,
  });
  const rateLimit = (bucket: string, limit: number): Limit => ({
    bucket,
    limit,
    windowSeconds: settings.windowSeconds,
    refusal: () => 'Rate limit exceeded',
  });
  const textLimit = (tenantId: string): Limit => ({
    bucket: `text:${tenantId}`,
    limit: settings.textCharsPerTenant,
    windowSeconds: settings.textWindowSeconds,
    refusal: (s) =>
      `Text budget exceeded: this tenant's writes may carry ${settings.textCharsPerTenant} characters of long text per ${inWords(settings.textWindowSeconds)}; try again in ${inWords(s)}`,
    // A refused write's text is counted too, so the window stays refused to its end: repeating the
    // refusal from memory answers as the store would.
    remembered: true,
  });
  const requestLimits = (credentialId: string, tenantId: string, points: number) => [
    { limit: rateLimit(`cred:${credentialId}`, settings.perKey), points },
    { limit: rateLimit(`tenant:${tenantId}`, settings.perTenant), points },
  ];

  return {
    /**
     * Count one request against its credential and its tenant; 429 when either is over its limit. A
     * request that does the work of several (a batch write's items) counts `points`; it is refused
     * whole when its last point is past a limit.
     */
    consume(credentialId: string, tenantId: string, points = 1): Promise<void> {
      return enforce(requestLimits(credentialId, tenantId, points));
    },
    /**
     * A write's cost past its first request: `requests` more (a batch's other items) and its long-text
     * characters against the tenant's text budget, counted together in one round trip. A write of
     * ordinary size (one item, no long text) costs nothing more and never gets here.
     */
    async consumeWrite(
      credentialId: string,
      tenantId: string,
      cost: { requests: number; textChars: number },
    ) {
      if (cost.textChars > 0) await refuseRemembered([textLimit(tenantId)]);
      return enforce([
        ...(cost.requests > 0 ? requestLimits(credentialId, tenantId, cost.requests) : []),
        ...(cost.textChars > 0 ? [{ limit: textLimit(tenantId), points: cost.textChars }] : []),
      ]);
    },
    /**
     * Before checking a password (a login, or the current password at a change): count the attempt
     * against its account and its client address, and refuse once either has used up its attempts.
     * Counted up front, so attempts sent all at once cannot each pass a check before any failure is
     * recorded; the outcome gives back what was not a failure. A bucket the store has just refused is
     * refused again from this instance's memory, uncounted, until it is time to ask again.
     */
    async takePasswordAttempt(attempt: PasswordAttempt): Promise<void> {
      const limits = [accountLimit(attempt.account), addressLimit(attempt.address)];
      await refuseRemembered(limits);
      await enforce(limits.map((limit) => ({ limit, points: 1 })));
    },
    /**
     * Before a login's body is read: 429 at once when this instance remembers its client address as
     * refused (the account's refusal needs the body's email, and comes in `takePasswordAttempt`).
     */
    refuseRememberedAddress(address: string): Promise<void> {
      return refuseRemembered([addressLimit(address)]);
    },
    /**
     * The password was right: the account's failures are forgiven, and this attempt is given back to
     * the address (only this one: an account of one's own must not wipe an address's failures).
     */
    async passwordAttemptSucceeded(attempt: PasswordAttempt): Promise<void> {
      const { bucket } = accountLimit(attempt.account);
      fallback.delete(bucket);
      await giveBack(bucket, deleteCounter);
      await giveBack(addressLimit(attempt.address).bucket, (r, key) => takeOneFromCounter(r, key, now()));
    },
    /** The check never ran (no hashing slot): the attempt was no guess, so it is given back to both. */
    async passwordAttemptNotMade(attempt: PasswordAttempt): Promise<void> {
      for (const { bucket } of [accountLimit(attempt.account), addressLimit(attempt.address)]) {
        await giveBack(bucket, (r, key) => takeOneFromCounter(r, key, now()));
      }
    },
    stop(): void {
      clearInterval(cleanup);
    },
  };
}
export type RateLimits = ReturnType<typeof createRateLimits>;
