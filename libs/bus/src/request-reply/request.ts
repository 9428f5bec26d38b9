import { errors, type NatsConnection } from '@nats-io/transport-node';
import { AppError, ErrorCode } from '@tm/contracts';
import type { z } from 'zod';
import { ERROR_HEADER, fromBusErrorBody } from '../bus-error.js';
import { requestErrors, requestSeconds } from '../bus-metrics.js';
import { decodeJson, encodeJson } from '../codec.js';
import { traceHeaders } from '../trace-headers.js';

export interface RequestOptions {
  timeoutMs: number;
  /** Name of the answering service, for a message a caller can act on. */
  service: string;
}

/**
 * Typed request/reply: validate what we send, bound the wait, and turn every failure into an AppError:
 * nobody listening -> 503, no answer in time -> 504, a typed error reply -> that error. The current
 * trace (if any) travels in the message's headers.
 */
export async function requestReply<I extends z.ZodType, O extends z.ZodType>(
  nc: NatsConnection,
  subject: string,
  contract: { input: I; output: O },
  payload: z.input<I>,
  options: RequestOptions,
): Promise<z.output<O>> {
  const data = encodeJson(contract.input.parse(payload));
  let reply: Awaited<ReturnType<NatsConnection['request']>>;
  const headers = traceHeaders();
  const stopTimer = requestSeconds.startTimer({ service: options.service });
  try {
    reply = await nc.request(subject, data, { timeout: options.timeoutMs, ...(headers ? { headers } : {}) });
  } catch (err) {
    throw transportError(err, options.service);
  } finally {
    stopTimer();
  }
  const body = decodeJson(reply.data);
  if (reply.headers?.get(ERROR_HEADER)) throw fromBusErrorBody(body);
  const parsed = contract.output.safeParse(body);
  if (!parsed.success) throw outsideContract(options.service, parsed.error);
  return parsed.data;
}

/** A reply that does not match the contract: the service and the caller disagree, so a 500. */
export const outsideContract = (service: string, cause: unknown) =>
  new AppError(ErrorCode.Internal, `The ${service} service answered outside its contract`, { cause });

/** Errors made by `transportError`: the request got no answer, as against an error the service answered. */
const unanswered = new WeakSet<AppError>();

/**
 * True when a request failed for want of an answer (nobody listening, no answer in time, bus down): what
 * a circuit breaker counts. A service that answers 503 itself (busy, its database away) is there.
 */
export const isTransportFailure = (err: unknown): boolean => err instanceof AppError && unanswered.has(err);

/**
 * A failed request (nobody listening, no answer in time, bus down) as the AppError a caller maps to
 * HTTP, counted in tm_bus_request_errors_total by kind.
 */
export function transportError(err: unknown, service: string): AppError {
  const mapped = unansweredError(err, service);
  unanswered.add(mapped);
  return mapped;
}

function unansweredError(err: unknown, service: string): AppError {
  const kind = failureKind(err);
  requestErrors.inc({ service, kind });
  if (kind === 'no_responders') {
    return new AppError(
      ErrorCode.ServiceUnavailable,
      `The ${service} service is unavailable; retry shortly`,
      {
        retryAfter: 1,
        cause: err,
      },
    );
  }
  if (kind === 'timeout') {
    return new AppError(
      ErrorCode.UpstreamTimeout,
      // Said to every caller, reads too: only a write has an idempotency key to keep.
      `The ${service} service did not answer in time; retry shortly (a write with the same idempotency key)`,
      { retryAfter: 1, cause: err },
    );
  }
  return new AppError(ErrorCode.ServiceUnavailable, `The message bus is unavailable; retry shortly`, {
    retryAfter: 1,
    cause: err,
  });
}

function failureKind(err: unknown): 'no_responders' | 'timeout' | 'bus_down' {
  if (err instanceof errors.NoRespondersError || (err instanceof errors.RequestError && err.isNoResponders()))
    return 'no_responders';
  if (
    err instanceof errors.TimeoutError ||
    (err instanceof Error && err.cause instanceof errors.TimeoutError)
  )
    return 'timeout';
  return 'bus_down';
}
