import type { Logger } from '@tm/kit';
import type { RequestHandler } from 'express';

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
      const line = {
        trace_id: req.trace?.traceId,
        span_id: req.trace?.spanId,
        req: { id: req.requestId, method, path },
        res: { status: res.writableFinished ? res.statusCode : null },
        responseTime: Math.round(performance.now() - started),
      };
      if (!res.writableFinished) logger.info(line, 'request aborted');
      else if (res.statusCode >= 500) logger.error(line, 'request failed');
      else logger.info(line, 'request completed');
    });
    next();
  };
}
