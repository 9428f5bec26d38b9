import type { Logger } from '@tm/kit';
import type { RequestHandler, Response } from 'express';

/** The status answered; a stream the gateway broke off has its error's; null when the client went first. */
const statusOf = (res: Response): number | null =>
  res.writableFinished ? res.statusCode : ((res.locals.cutShortStatus as number | undefined) ?? null);

/**
 * One line per request once its response is finished (or the client gone): trace and request id,
 * method, path, status and milliseconds. Never headers (credentials), query strings or bodies (memory text). A plain
 * listener rather than pino-http, whose per-request child logger cost a tenth of the gateway's CPU.
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const { method, path } = req; // routers rewrite req.url on the way; keep what came in
    res.once('close', () => {
      const status = statusOf(res);
      const line = {
        trace_id: req.trace?.traceId,
        span_id: req.trace?.spanId,
        req: { id: req.requestId, method, path },
        res: { status },
        responseTime: Math.round(performance.now() - started),
      };
      if (status === null) logger.info(line, 'request aborted');
      else if (status >= 500) {
        // A retryable 503/504 at warn, as the error handler logged it (failureLevel); any other 5xx
        // (one no AppError answered, e.g. a failed smoke test's report) at error.
        logger[res.locals.failureLevel === 'warn' ? 'warn' : 'error'](line, 'request failed');
      } else logger.info(line, 'request completed');
    });
    next();
  };
}
