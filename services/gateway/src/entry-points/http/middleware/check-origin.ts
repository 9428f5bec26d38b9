import { AppError, ErrorCode } from '@tm/contracts';
import type { RequestHandler } from 'express';
import { type OriginPattern, originAllowed } from '../../../domain/mcp/allowed-origins.js';
import { ownOrigin } from '../own-address.js';

/** What a browser page's MCP client sends and must read (the transport's headers, the 401 challenge). */
const ALLOWED_HEADERS =
  'Authorization, X-API-Key, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID';
const EXPOSED_HEADERS = 'Mcp-Session-Id, WWW-Authenticate, X-Request-Id';

/**
 * The MCP transport's rule against DNS rebinding: a request whose `Origin` is present and not allowed
 * is refused with 403 before anything else runs. A request without `Origin` comes from no browser
 * page (desktop and agent clients send none) and goes on to authentication like any other. An allowed
 * page gets the CORS headers that let it read the answer (the Inspector's page calls /mcp directly).
 */
export function checkOrigin(allowed: readonly OriginPattern[]): RequestHandler {
  return (req, res, next) => {
    const origin = req.get('origin');
    res.vary('Origin');
    if (origin === undefined) {
      next();
      return;
    }
    if (!originAllowed(origin, allowed, ownOrigin(req))) {
      throw new AppError(
        ErrorCode.PermissionDenied,
        'This origin may not call /mcp: a browser page must be served from an origin in MCP_ALLOWED_ORIGINS',
      );
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    next();
  };
}

/** A CORS preflight from an allowed page (checkOrigin ran first): what it may send. No credential needed. */
export const answerPreflight: RequestHandler = (_req, res) => {
  res.setHeader('Access-Control-Allow-Methods', 'POST, GET, DELETE');
  res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
  res.setHeader('Access-Control-Max-Age', '600');
  res.status(204).end();
};
