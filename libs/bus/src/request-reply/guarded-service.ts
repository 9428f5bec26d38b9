import type { NatsConnection } from '@nats-io/transport-node';
import { PingReply } from '@tm/contracts';
import { closeOnRecovery, createBreaker, type Logger } from '@tm/kit';
import { z } from 'zod';
import { isTransportFailure, requestReply } from './request.js';

export interface GuardedServiceOptions {
  /** The service called, as its breaker, metrics and errors name it. */
  service: string;
  /** Its ping subject: answered even while its database is down. */
  pingSubject: string;
  /** How long an open breaker refuses calls before opossum's own probe. */
  resetMs: number;
  /** The deadline of the recovery pings. */
  pingTimeoutMs: number;
  logger: Logger;
}

/**
 * A caller's circuit breaker around one service on the bus. Only calls nobody answered count as an
 * outage (a service that answers with its own error is there). `ping` bypasses the breaker and any
 * answer closes it, so an open breaker cannot hide a recovered service; while it is open the pings
 * repeat (closeOnRecovery) until one is answered.
 */
export function createGuardedService(nc: NatsConnection, options: GuardedServiceOptions) {
  const { service } = options;
  const { breaker, call } = createBreaker({
    name: service,
    resetMs: options.resetMs,
    logger: options.logger,
    isOutage: isTransportFailure,
  });
  const ping = async (timeoutMs: number) => {
    const reply = await requestReply(
      nc,
      options.pingSubject,
      { input: z.object({}), output: PingReply },
      {},
      { timeoutMs, service },
    );
    if (!breaker.closed) breaker.close();
    return reply;
  };
  closeOnRecovery(breaker, () => ping(options.pingTimeoutMs));
  return { breaker, call, ping };
}
