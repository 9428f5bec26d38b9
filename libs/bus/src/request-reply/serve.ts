import {
  type Msg,
  type NatsConnection,
  headers as natsHeaders,
  type Subscription,
} from '@nats-io/transport-node';
import { AppError, ErrorCode, statusOf, tolerantOf, validateInput } from '@tm/contracts';
import { runInTrace } from '@tm/kit';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { ERROR_DESCRIPTION_HEADER, ERROR_HEADER, toBusErrorBody } from '../bus-error.js';
import { handledMessages, handlingSeconds, outcomeOf } from '../bus-metrics.js';
import { decodeJson, encodeJson } from '../codec.js';
import { traceOfMessage } from '../trace-headers.js';
import { holdWhileWorking } from './drain-endpoints.js';
import type { EndpointStats } from './endpoint-stats.js';

export interface Endpoint<I extends z.ZodType> {
  subject: string;
  /** Queue group: instances of one service share the subject's load. */
  queue: string;
  input: I;
  handler: (input: z.output<I>) => Promise<unknown>;
  /** Turn infrastructure failures (e.g. database down) into a typed, retryable AppError. */
  mapError?: (err: unknown) => AppError | undefined;
}

/**
 * Serve one request/reply endpoint. Messages are handled concurrently; every reply is either the
 * handler's result or a typed error (headers + JSON body) the caller maps to HTTP. A service's
 * endpoints are served through `createService` (nats-service.ts), which passes `stats`.
 */
export function serveEndpoint<I extends z.ZodType>(
  nc: NatsConnection,
  endpoint: Endpoint<I>,
  logger: Logger,
  stats?: EndpointStats,
): Subscription {
  return subscribeEndpoint(nc, endpoint, logger, (msg) => handle(msg, endpoint, logger), stats);
}

/**
 * Subscribe in the endpoint's queue group; a subscription error is logged, each message handed on. The
 * work each message starts is counted until it settles, so a stopping service can let it finish
 * (drainEndpoints), and recorded in `stats` (the micro protocol's `$SRV.STATS`): its time, and the
 * error it was answered with, if any.
 */
export function subscribeEndpoint(
  nc: NatsConnection,
  endpoint: { subject: string; queue: string },
  logger: Logger,
  onMessage: (msg: Msg) => Promise<AppError | undefined>,
  stats?: EndpointStats,
): Subscription {
  const subscription: Subscription = nc.subscribe(endpoint.subject, {
    queue: endpoint.queue,
    callback: (err, msg) => {
      if (err) {
        logger.error({ err, subject: endpoint.subject }, 'subscription error');
        return;
      }
      const started = performance.now();
      holdWhileWorking(
        subscription,
        onMessage(msg).then(
          (error) => stats?.record(started, error),
          // Answering failed (the connection closed under it): say so rather than end the process.
          (failure: unknown) => {
            stats?.record(started, { status: statusOf(ErrorCode.Internal), code: ErrorCode.Internal });
            logger.error({ err: failure, subject: endpoint.subject }, 'could not answer a message');
          },
        ),
      );
    },
  });
  return subscription;
}

/**
 * One message, handled inside the trace its headers carry (so every log line of its work names it);
 * resolves with the error it was answered with, if any.
 */
function handle<I extends z.ZodType>(
  msg: Msg,
  endpoint: Endpoint<I>,
  logger: Logger,
): Promise<AppError | undefined> {
  return runInTrace(traceOfMessage(msg.headers), async () => {
    let body: unknown;
    try {
      body = decodeJson(msg.data);
    } catch (err) {
      const error = toAppError(err, endpoint, logger);
      respondWithError(msg, error);
      return error;
    }
    const answer = await answerMessage(endpoint, body, logger);
    if ('error' in answer) {
      respondWithError(msg, answer.error);
      return answer.error;
    }
    msg.respond(encodeJson(answer.ok));
    return undefined;
  });
}

/**
 * Validate one message body and run the handler on it: the handler's result, or the error to answer.
 * Counted and timed per subject (tm_bus_handled_total, tm_bus_handle_duration_seconds).
 */
export async function answerMessage<I extends z.ZodType>(
  endpoint: Endpoint<I>,
  body: unknown,
  logger: Logger,
): Promise<{ ok: unknown } | { error: AppError }> {
  const stopTimer = handlingSeconds.startTimer({ subject: endpoint.subject });
  let status: number | undefined;
  try {
    // A tolerant reader: a field this service does not know yet is dropped, not refused (tolerantOf).
    const parsed = validateInput(tolerantOf(endpoint.input), body);
    if (parsed.fields) {
      throw new AppError(ErrorCode.ValidationFailed, 'Invalid message', { fields: parsed.fields });
    }
    const ok = await endpoint.handler(parsed.data);
    logger.debug({ subject: endpoint.subject }, 'message answered');
    return { ok };
  } catch (err) {
    const error = toAppError(err, endpoint, logger);
    status = error.status;
    return { error };
  } finally {
    stopTimer();
    handledMessages.inc({ subject: endpoint.subject, outcome: outcomeOf(status) });
  }
}

/**
 * A typed error reply: the micro protocol's headers mark it (its HTTP-like status and its message, as
 * `nats req` and `nats micro` show them), the body carries the error.
 */
export function respondWithError(msg: Msg, err: AppError): void {
  const h = natsHeaders();
  h.set(ERROR_HEADER, String(err.status));
  h.set(ERROR_DESCRIPTION_HEADER, headerSafe(err.message));
  msg.respond(encodeJson(toBusErrorBody(err)), { headers: h });
}

/** A header value is one line of text: line breaks (a message may quote input) become spaces. */
const headerSafe = (text: string) => text.replace(/[\r\n]+/g, ' ');

/** What a handler's failure becomes on the wire: its AppError, a mapped outage, or a bare 500. */
function toAppError<I extends z.ZodType>(err: unknown, endpoint: Endpoint<I>, logger: Logger): AppError {
  if (err instanceof AppError) return err;
  const mapped = endpoint.mapError?.(err);
  if (mapped) {
    logger.warn({ err: mapped.cause ?? err, subject: endpoint.subject, code: mapped.code }, 'request failed');
    return mapped;
  }
  logger.error({ err, subject: endpoint.subject }, 'unhandled error');
  return new AppError(ErrorCode.Internal, 'Internal error');
}
