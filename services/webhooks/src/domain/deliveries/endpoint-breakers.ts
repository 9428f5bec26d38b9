import type { Logger } from '@tm/kit';
import CircuitBreaker from 'opossum';
import { ADDRESS_NOT_ALLOWED } from './address-guard.js';
import type { AttemptOutcome } from './post-webhook.js';

export interface BreakerSettings {
  /** How long an endpoint is left alone once its breaker opens, before one probe (WEBHOOKS_BREAKER_RESET_MS). */
  resetMs: number;
  /** Attempts in the window before failures can open it (WEBHOOKS_BREAKER_VOLUME). */
  volume: number;
  logger: Logger;
}

/** Half of an endpoint's recent attempts unanswered opens its breaker (the gateway's breakers use 50 % too). */
const ERROR_THRESHOLD_PERCENT = 50;
/** The window those attempts are counted in: six 10 s time-outs fit in it. */
const WINDOW_MS = 60_000;

/** What `send` answers when the endpoint's breaker is open: nothing was sent, so no attempt is recorded. */
export const NOT_SENT = Symbol('not sent');

/**
 * An attempt that got no answer at all (time-out, refused or reset connection): the kind that holds a
 * send slot. An HTTP error status is an answer, quick and already spaced out by the retry schedule,
 * and an address refused before connecting costs nothing, so neither counts against the breaker.
 */
const unanswered = (outcome: AttemptOutcome) =>
  outcome.statusCode === null && outcome.error !== ADDRESS_NOT_ALLOWED;

class Unanswered extends Error {
  constructor(readonly outcome: AttemptOutcome) {
    super(outcome.error ?? 'no answer');
  }
}

/**
 * One opossum breaker per endpoint, in this instance's memory: an endpoint that stops answering is
 * left alone for `resetMs`, then probed with one attempt, instead of holding send slots for a time-out
 * on every due delivery. Breakers of endpoints not used for a window are dropped.
 */
export function endpointBreakers(settings: BreakerSettings) {
  const breakers = new Map<string, { breaker: CircuitBreaker; usedAt: number }>();

  const breakerOf = (endpointId: string) => {
    const found = breakers.get(endpointId);
    if (found) {
      found.usedAt = Date.now();
      return found.breaker;
    }
    const breaker = new CircuitBreaker(
      async (send: () => Promise<AttemptOutcome>) => {
        const outcome = await send();
        if (unanswered(outcome)) throw new Unanswered(outcome);
        return outcome;
      },
      {
        name: endpointId,
        timeout: false, // each attempt carries its own bound (WEBHOOKS_ATTEMPT_TIMEOUT_MS)
        resetTimeout: settings.resetMs,
        errorThresholdPercentage: ERROR_THRESHOLD_PERCENT,
        volumeThreshold: settings.volume,
        rollingCountTimeout: WINDOW_MS,
      },
    );
    breaker.on('open', () =>
      settings.logger.warn({ endpoint_id: endpointId }, 'webhook endpoint not answering; backing off'),
    );
    breakers.set(endpointId, { breaker, usedAt: Date.now() });
    return breaker;
  };

  return {
    /** Send through the endpoint's breaker: the outcome, or NOT_SENT while it is open. */
    async send(
      endpointId: string,
      send: () => Promise<AttemptOutcome>,
    ): Promise<AttemptOutcome | typeof NOT_SENT> {
      try {
        return (await breakerOf(endpointId).fire(send)) as AttemptOutcome;
      } catch (err) {
        if (err instanceof Unanswered) return err.outcome;
        if ((err as { code?: unknown }).code === 'EOPENBREAKER') return NOT_SENT;
        throw err;
      }
    },
    /** Endpoints to leave out now (open), and those allowed one probe (half-open). */
    states() {
      const open: string[] = [];
      const probing = new Set<string>();
      for (const [id, { breaker }] of breakers) {
        if (breaker.opened) open.push(id);
        else if (breaker.halfOpen) probing.add(id);
      }
      return { open, probing };
    },
    /** Drop closed breakers of endpoints not sent to for a window (their counts have aged out). */
    sweep(inUse: (endpointId: string) => boolean) {
      const before = Date.now() - WINDOW_MS;
      for (const [id, { breaker, usedAt }] of breakers) {
        if (breaker.closed && usedAt < before && !inUse(id)) {
          breaker.shutdown();
          breakers.delete(id);
        }
      }
    },
    shutdown() {
      for (const { breaker } of breakers.values()) breaker.shutdown();
      breakers.clear();
    },
  };
}

export type EndpointBreakers = ReturnType<typeof endpointBreakers>;
