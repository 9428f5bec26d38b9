import { randomUUID } from 'node:crypto';
import type { Scope } from '@tm/contracts';
import type { RequestHandler } from 'express';
import type { Account } from '../../../domain/identity/authenticate-session.js';

declare global {
  namespace Express {
    interface Request {
      /** Correlation id: the caller's valid X-Request-Id, else generated. */
      requestId: string;
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

/** Honour a well-formed X-Request-Id (anything else could be used to forge log lines), echo it. */
export const requestContext: RequestHandler = (req, res, next) => {
  const given = req.get('x-request-id');
  req.requestId = given && VALID_REQUEST_ID.test(given) ? given : `req_${randomUUID()}`;
  res.setHeader('X-Request-Id', req.requestId);
  next();
};
