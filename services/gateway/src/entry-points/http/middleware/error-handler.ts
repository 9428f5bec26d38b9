import {
  AppError,
  ErrorCode,
  type ErrorEnvelope,
  LIMITS,
  type OpenAiErrorEnvelope,
  openAiErrorType,
} from '@tm/contracts';
import { isStorageUnavailable, type Logger } from '@tm/kit';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { errorDetails, errorEnvelope } from '../../../domain/error-envelope.js';
import { TOO_DEEP } from './json-body.js';

/** body-parser reports its failures with a `type`; they are the caller's mistakes, not ours. */
function fromBodyParser(err: { type?: string; status?: unknown; expose?: unknown }): AppError | undefined {
  if (err.type === 'entity.parse.failed')
    return new AppError(ErrorCode.MalformedJson, 'Request body is not valid JSON');
  if (err.type === TOO_DEEP) {
    const message = `nests objects and lists deeper than ${LIMITS.bodyMaxDepth} levels`;
    return new AppError(ErrorCode.ValidationFailed, `Request body ${message}`, {
      fields: [{ path: '(body)', message }],
    });
  }
  if (err.type === 'entity.too.large')
    return new AppError(ErrorCode.PayloadTooLarge, 'Request body is larger than the limit');
  if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') {
    return new AppError(ErrorCode.UnsupportedMediaType, 'Request body encoding is not supported');
  }
  // Any other client error Express or body-parser marks as safe to show (http-errors' `expose`).
  if (typeof err.status === 'number' && err.status >= 400 && err.status < 500 && err.expose === true) {
    return new AppError(ErrorCode.MalformedRequest, 'The request could not be read');
  }
  return undefined;
}

/** The gateway's own database being unreachable is an outage to retry, not an internal error. */
function fromInfrastructure(err: unknown): AppError | undefined {
  if (!isStorageUnavailable(err)) return undefined;
  return new AppError(ErrorCode.StorageUnavailable, 'The service is temporarily unavailable; retry shortly', {
    retryAfter: 2,
    cause: err,
  });
}

/** Marks a route whose failures carry `idempotency_outcome`: it takes an idempotency key. */
export const idempotentWrite: RequestHandler = (_req, res, next) => {
  res.locals.idempotentWrite = true;
  next();
};

export const notFound: RequestHandler = (req, res) => {
  res.locals.unmatchedRoute = true; // the record names no path a caller typed
  throw new AppError(ErrorCode.NotFound, `No route ${req.method} ${req.path}`);
};

/**
 * How loud a 5xx is in the log. A retryable one (a service down or slow, a breaker open, a database
 * unreachable: 503/504) is an outage the client is told to ride out, and its cause is counted in
 * the metrics (tm_bus_request_errors_total, tm_breaker_state): `warn`. At `error` a fault campaign
 * wrote 162 such lines, which buried the unexpected ones. Anything else (internal_error) is `error`.
 */
export const failureLevel = (error: AppError): 'warn' | 'error' => (error.retryable ? 'warn' : 'error');

/**
 * The only place errors become HTTP: the spec's envelope, a Retry-After on retryable answers,
 * no stack traces or internal identifiers. 5xx bodies say little; the log says enough.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    // The client hung up mid-body: nobody is left to answer, and it is not our failure.
    if ((err as { type?: string }).type === 'request.aborted' || req.socket.destroyed) return;
    // Answered already: the drain answered a request still held at its bound (drain-server.ts), and
    // the handler's late answer or failure ends here.
    if (res.writableEnded) return;
    const appError =
      err instanceof AppError
        ? err
        : (fromBodyParser(err) ??
          fromInfrastructure(err) ??
          new AppError(ErrorCode.Internal, 'Internal error', { cause: err }));
    answerWithError(req, res, appError, logger);
  };
}

/** The envelope for `appError`, with its status and Retry-After; a 5xx is logged, with its cause. */
export function answerWithError(req: Request, res: Response, appError: AppError, logger: Logger): void {
  if (appError.status >= 500) {
    logger[failureLevel(appError)](
      { err: appError.cause ?? appError, code: appError.code, request_id: req.requestId },
      'request failed',
    );
  }
  res.locals.errorCode = appError.code; // for the request record
  res.locals.failureLevel = failureLevel(appError); // for the access line
  if (res.headersSent) {
    // A streamed answer (the export) failed after its 200 went out: no envelope can follow, so the
    // transfer is broken off (no final chunk). The client sees an incomplete body, never a
    // document that looks whole; the record and the access line carry the error's status.
    res.locals.cutShortStatus = appError.status;
    res.destroy();
    return;
  }
  if (appError.retryAfter !== undefined) res.setHeader('Retry-After', String(appError.retryAfter));
  // OpenAI clients read `error` as { message, type, code, param }; everything else is the same envelope.
  const body: ErrorEnvelope | OpenAiErrorEnvelope = res.locals.openAiErrors
    ? {
        error: {
          message: appError.message,
          type: openAiErrorType(appError.status),
          code: appError.code,
          param: appError.fields?.[0]?.path ?? null,
        },
        retryable: appError.retryable,
        request_id: req.requestId,
        details: errorDetails(appError, req.requestId),
      }
    : errorEnvelope(appError, req.requestId, { idempotentWrite: res.locals.idempotentWrite === true });
  res.status(appError.status).json(body);
}
