import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode, REQUEST_ID_MAX, REQUEST_ID_PATTERN, type Scope } from '@tm/contracts';
import { childSpan, formatTraceparent, parseTraceparent, runInTrace, type TraceContext } from '@tm/kit';
import type { RequestHandler } from 'express';
import type { Account } from '../../../domain/identity/authenticate-session.js';

declare global {
  namespace Express {
    interface Request {
      /** Correlation id: the caller's X-Request-Id, else generated (also when the caller's is refused). */
      requestId: string;
      /** The gateway's span of the caller's W3C trace (a new trace when the caller sent none). */
      trace: TraceContext;
      /** Set by authentication; the only source of tenant and user scope. */
      scope?: Scope;
      /** Set by session authentication on control-plane routes. */
      account?: Account;
      /**
       * Set as soon as an API key is verified, before its permissions are checked: whose a refused
       * request was (attribution in its record only; never a scope to act in).
       */
      verifiedCaller?: { tenantId: string; userId: string; keyId: string };
      /** Set on read-only infrastructure routes, from an API key or a session. */
      reader?: { tenantId: string; userId: string; keyId?: string };
      /** Set at /mcp: the verified key's tenant, user, id and permissions, and the key for the tools' calls. */
      mcpCaller?: {
        tenantId: string;
        userId: string;
        keyId: string;
        permissions: string[];
        apiKey: string;
      };
    }
  }
}

/**
 * Keep the caller's X-Request-Id and echo it: 1–200 printable ASCII characters (request-id.ts). One
 * that cannot be kept (a control character could forge log lines) is never swapped silently: the
 * request is refused at once, a 400 naming the header, under a generated id (on every path, before
 * any route: nobody is identified yet, so the refusal is in no tenant's history). Continue
 * the caller's W3C trace (`traceparent`; an invalid one starts a new trace), answer with the gateway's
 * span in `traceparent`, and run the rest of the request inside it: bus requests carry it on.
 */
export const requestContext: RequestHandler = (req, res, next) => {
  const given = req.get('x-request-id') || undefined; // an empty header is no id
  const usable = given !== undefined && REQUEST_ID_PATTERN.test(given);
  req.requestId = usable ? given : `req_${randomUUID()}`;
  req.trace = childSpan(parseTraceparent(req.get('traceparent')), req.requestId);
  res.setHeader('X-Request-Id', req.requestId);
  res.setHeader('traceparent', formatTraceparent(req.trace));
  if (given !== undefined && !usable) {
    const message = `must be 1–${REQUEST_ID_MAX} printable ASCII characters`;
    next(
      new AppError(ErrorCode.ValidationFailed, `Invalid X-Request-Id header: ${message}`, {
        fields: [{ path: 'X-Request-Id', message }],
      }),
    );
    return;
  }
  runInTrace(req.trace, next);
};
