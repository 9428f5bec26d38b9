import { AppError, ErrorCode } from '@tm/contracts';
import CircuitBreaker from 'opossum';
import client from 'prom-client';
import { RECOVERY_PROBE_MS } from './breaker-recovery.js';
import type { Logger } from './logger.js';

// Defined by the first breaker, so only a process that calls other services shows it.
let breakerState: client.Gauge | undefined;
const stateGauge = () =>
  (breakerState ??= new client.Gauge({
    name: 'tm_breaker_state',
    help: 'Circuit breaker per downstream service: 0 closed, 1 half-open, 2 open',
    labelNames: ['target'],
  }));

/**
 * A service's breaker: opossum's, under a name of the kit's, so a caller's types that carry it (a
 * service client) name @tm/kit rather than opossum, which only the kit depends on.
 */
export interface ServiceBreaker extends CircuitBreaker<[call: () => Promise<unknown>], unknown> {}

export interface BreakerOptions {
  name: string;
  resetMs: number;
  logger: Logger;
  /**
   * What counts against the breaker: only "the service is not there" (no answer; for calls over the
   * bus, @tm/bus's isTransportFailure). Any answer is a healthy one, a 503 too: memory refusing a
   * recall because every tenant's recalls fill its queue must not open the breaker for all tenants'
   * writes.
   */
  isOutage: (err: unknown) => boolean;
}

/**
 * One breaker per downstream service. While open, calls fail at once with a retryable 503 and a
 * Retry-After, instead of queueing on a service that is down; after `resetMs` one call probes it,
 * and meanwhile its ping closes it as soon as the service answers (`breaker-recovery.ts`).
 */
export function createBreaker(options: BreakerOptions) {
  const breaker: ServiceBreaker = new CircuitBreaker(<T>(call: () => Promise<T>) => call(), {
    name: options.name,
    timeout: false, // each bus request carries its own deadline
    resetTimeout: options.resetMs,
    errorThresholdPercentage: 50,
    volumeThreshold: 3,
    rollingCountTimeout: 10_000,
    errorFilter: (err: unknown) => !options.isOutage(err),
  });
  const gauge = stateGauge();
  const target = { target: options.name };
  gauge.set(target, 0);
  breaker.on('open', () => {
    gauge.set(target, 2);
    options.logger.warn({ breaker: options.name }, 'circuit opened');
  });
  breaker.on('halfOpen', () => {
    gauge.set(target, 1);
    options.logger.info({ breaker: options.name }, 'circuit half-open');
  });
  breaker.on('close', () => {
    gauge.set(target, 0);
    options.logger.info({ breaker: options.name }, 'circuit closed');
  });

  return {
    breaker,
    async call<T>(fn: () => Promise<T>): Promise<T> {
      try {
        return (await breaker.fire(fn)) as T;
      } catch (err) {
        if (err instanceof AppError) throw err;
        if ((err as { code?: string })?.code === 'EOPENBREAKER') {
          throw new AppError(
            ErrorCode.ServiceUnavailable,
            `The ${options.name} service is unavailable; retry shortly`,
            {
              // The ping closes it within RECOVERY_PROBE_MS of the service's return, not at the reset.
              retryAfter: Math.ceil(Math.min(options.resetMs, RECOVERY_PROBE_MS) / 1000),
              cause: err,
            },
          );
        }
        throw err;
      }
    },
  };
}
