import type { Scope } from '@tm/contracts';
import type { Request, RequestHandler } from 'express';
import { authenticateApiKey, authenticationRequired } from '../../../domain/authenticate-api-key.js';
import type { VerifiedKeyCache } from '../../../domain/verified-key-cache.js';

/** The key from `Authorization: Bearer <key>` or `X-API-Key: <key>`; never logged. */
export function presentedApiKey(req: Request): string | undefined {
  const authorization = req.get('authorization');
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match?.[1];
  }
  return req.get('x-api-key')?.trim() || undefined;
}

/** Verify the API key and attach the scope it grants; 401/403 otherwise. */
export function authenticate(cache: VerifiedKeyCache): RequestHandler {
  return async (req, _res, next) => {
    const key = presentedApiKey(req);
    if (!key) throw authenticationRequired();
    req.scope = await authenticateApiKey(key, { cache });
    next();
  };
}

/** The verified scope of an authenticated route; a route mounted without `authenticate` fails closed. */
export function scopeOf(req: Request): Scope {
  if (!req.scope) throw authenticationRequired();
  return req.scope;
}
