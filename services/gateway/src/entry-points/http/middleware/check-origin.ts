import { AppError, ErrorCode } from '@tm/contracts';
import type { RequestHandler } from 'express';
import { type OriginPattern, originAllowed } from '../../../domain/mcp/allowed-origins.js';
import { ownOrigin } from '../own-address.js';

/**
 * The MCP transport's rule against DNS rebinding: a request whose `Origin` is present and not allowed
 * is refused with 403 before anything else runs. A request without `Origin` comes from no browser
 * page (desktop and agent clients send none) and goes on to authentication like any other.
 */
export function checkOrigin(allowed: readonly OriginPattern[]): RequestHandler {
  return (req, _res, next) => {
    const origin = req.get('origin');
    if (origin !== undefined && !originAllowed(origin, allowed, ownOrigin(req))) {
      throw new AppError(
        ErrorCode.PermissionDenied,
        'This origin may not call /mcp: a browser page must be served from an origin in MCP_ALLOWED_ORIGINS',
      );
    }
    next();
  };
}
