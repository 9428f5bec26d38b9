import { LATENCY_BUCKETS } from '@tm/kit';
import type { RequestHandler } from 'express';
import client from 'prom-client';
import { routeOperationOf } from '../route-operations.js';

const requests = new client.Histogram({
  name: 'tm_http_request_duration_seconds',
  help: 'HTTP requests the gateway answered: time to the end of the response, by operation, method and status class',
  labelNames: ['operation', 'method', 'status_class'],
  buckets: LATENCY_BUCKETS,
});

/**
 * Rate and latency of the public API. Labelled by the route's operation name (`memory.recall`), never
 * the path: paths carry ids and names a caller chooses, and every distinct label value is a new series.
 * A path no route serves is `(unmatched)`, as in the request records.
 */
export const httpMetrics: RequestHandler = (req, res, next) => {
  const stop = requests.startTimer();
  const { method, path } = req; // as asked: a router rewrites req.url while it holds the request
  res.once('close', () => {
    const status = res.writableFinished ? res.statusCode : 499;
    stop({
      operation: (!res.locals.unmatchedRoute && routeOperationOf(method, path)?.operation) || '(unmatched)',
      method,
      status_class: `${Math.floor(status / 100)}xx`,
    });
  });
  next();
};
