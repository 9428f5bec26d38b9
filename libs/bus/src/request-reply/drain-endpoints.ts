import { setTimeout as sleep } from 'node:timers/promises';
import type { Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';

/**
 * The handlers still at work per endpoint subscription. nats.js's `drain()` stops a subscription's
 * deliveries and hands it what was already on the way, but a callback subscription does not wait for
 * the promises its callback started: without this, a service would close its pool under them.
 */
const inFlight = new WeakMap<Subscription, Set<Promise<unknown>>>();

/** Count `work` as in flight on `subscription` until it settles; it must not reject (its caller catches). */
export function holdWhileWorking(subscription: Subscription, work: Promise<unknown>): void {
  let pending = inFlight.get(subscription);
  if (!pending) {
    pending = new Set();
    inFlight.set(subscription, pending);
  }
  const held = pending;
  held.add(work);
  work.finally(() => held.delete(work));
}

/**
 * Stop taking requests on these subscriptions, then let those already taken be answered, within
 * `withinMs` all told. What is still unanswered then is left: its caller's deadline turns it into a
 * retryable 504, and a write's idempotency key makes the retry safe. Resolves with how many were left.
 */
export async function drainEndpoints(
  subscriptions: Subscription[],
  withinMs: number,
  logger: Logger,
): Promise<number> {
  const bound = new AbortController();
  const drained = await Promise.race([
    (async () => {
      // A subscription the connection already closed (a NATS restart, a stop that raced this one) has
      // nothing left to drain, and drain() would throw for it.
      await Promise.all(subscriptions.map((s) => (s.isClosed() ? undefined : s.drain().catch(() => {}))));
      await Promise.allSettled(subscriptions.flatMap((s) => [...(inFlight.get(s) ?? [])]));
      return true;
    })(),
    sleep(withinMs, false, { signal: bound.signal }).catch(() => false),
  ]);
  bound.abort();
  if (drained) return 0;
  const left = subscriptions.reduce((sum, s) => sum + (inFlight.get(s)?.size ?? 0), 0);
  logger.warn({ requests: left, drain_ms: withinMs }, 'bus requests still unanswered at the drain bound');
  return left;
}
