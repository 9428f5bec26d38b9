import { createCoalescingRequester, createGuardedService, type NatsConnection, requestReply } from '@tm/bus';
import type { Logger } from '@tm/kit';
import type { z } from 'zod';

/** One request/reply endpoint of a service: its subject and the contracts both messages are checked against. */
export interface Endpoint<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  subject: string;
  input: I;
  output: O;
  /** Calls of one event-loop turn are coalesced into one message (createCoalescingRequester). */
  coalesced?: boolean;
}

export const endpoint = <I extends z.ZodType, O extends z.ZodType>(
  subject: string,
  input: I,
  output: O,
  options: { coalesced?: boolean } = {},
): Endpoint<I, O> => ({ subject, input, output, ...options });

/** A service as the gateway calls it: its name (breaker, error messages), its ping and its endpoints. */
export interface ServiceTable<E extends Record<string, Endpoint>> {
  service: string;
  ping: string;
  endpoints: E;
}

/** A ping's deadline: the service checks its own dependencies within half of it. */
export const PING_TIMEOUT_MS = 1_000;

export interface ServiceClientOptions {
  /** Deadline of one call; past it the caller gets a retryable 504. */
  timeoutMs: number;
  /** How long an open breaker refuses calls before one probes the service again. */
  breakerResetMs: number;
  logger: Logger;
}

type Calls<E extends Record<string, Endpoint>> = {
  [K in keyof E]: (msg: z.input<E[K]['input']>) => Promise<z.output<E[K]['output']>>;
};

/**
 * Typed calls to one service over NATS request/reply, one per endpoint of its table, all behind the
 * service's one circuit breaker. An endpoint whose work takes longer than a request gets its own
 * deadline in `deadlines`.
 */
export function createServiceClient<E extends Record<string, Endpoint>>(
  nc: NatsConnection,
  table: ServiceTable<E>,
  options: ServiceClientOptions & { deadlines?: Partial<Record<keyof E, number | undefined>> },
) {
  const { service } = table;
  const { breaker, call, ping } = createGuardedService(nc, {
    service,
    pingSubject: table.ping,
    resetMs: options.breakerResetMs,
    pingTimeoutMs: PING_TIMEOUT_MS,
    logger: options.logger,
  });
  const calls = Object.fromEntries(
    Object.entries(table.endpoints).map(([name, { subject, input, output, coalesced }]) => {
      const opts = { timeoutMs: options.deadlines?.[name] ?? options.timeoutMs, service };
      if (coalesced) {
        const send = createCoalescingRequester(nc, subject, { input, output }, opts);
        return [name, (msg: unknown) => call(() => send(msg))];
      }
      return [name, (msg: unknown) => call(() => requestReply(nc, subject, { input, output }, msg, opts))];
    }),
  ) as Calls<E>;
  // `ping` is also the health route's report: it bypasses the breaker and its answer closes it.
  return { breaker, ...calls, ping };
}
