import { randomUUID } from 'node:crypto';
import type { Scope } from '@tm/contracts';
import { childSpan, formatTraceparent, parseTraceparent, runInTrace, type TraceContext } from '@tm/kit';
import type { RequestHandler } from 'express';
import type { Account } from '../../../domain/identity/authenticate-session.js';

declare global {
  namespace Express {
    interface Request {
      /** Correlation id: the caller's valid X-Request-Id, else generated. */
      requestId: string;
      /** The gateway's span of the caller's W3C trace (a new trace when the caller sent none). */
      trace: TraceContext;
      /** Set by authentication; the only source of tenant and user scope. */
      scope?: Scope;
      /** Set by session authentication on control-plane routes. */
      account?: Account;
      /** Set on read-only infrastructure routes, from an API key or a session. */
      reader?: { tenantId: string; userId: string; keyId?: string };
    }
  }
}

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Honour a well-formed X-Request-Id (anything else could be used to forge log lines), echo it. Continue
 * the caller's W3C trace (`traceparent`; an invalid one starts a new trace), answer with the gateway's
 * span in `traceparent`, and run the rest of the request inside it: bus requests carry it on.
 */
export const requestContext: RequestHandler = (req, res, next) => {
  const given = req.get('x-request-id');
  req.requestId = given && VALID_REQUEST_ID.test(given) ? given : `req_${randomUUID()}`;
  req.trace = childSpan(parseTraceparent(req.get('traceparent')), req.requestId);
  res.setHeader('X-Request-Id', req.requestId);
  res.setHeader('traceparent', formatTraceparent(req.trace));
  runInTrace(req.trace, next);
};
