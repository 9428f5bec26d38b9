import { AppError, ErrorCode } from '@tm/contracts';
import type { RequestHandler } from 'express';
import { type OriginPattern, originAllowed } from '../../../domain/mcp/allowed-origins.js';
import { addressedHere, ownOrigin } from '../own-address.js';

/** Where /mcp is served and which browser pages may call it (GATEWAY_PUBLIC_URL, MCP_ALLOWED_ORIGINS). */
export interface McpAddress {
  publicUrl: string | undefined;
  allowedOrigins: readonly OriginPattern[];
}

/** What a browser page's MCP client sends and must read (the transport's headers, the 401 challenge). */
const ALLOWED_HEADERS =
  'Authorization, X-API-Key, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID';
const EXPOSED_HEADERS = 'Mcp-Session-Id, WWW-Authenticate, X-Request-Id';

/**
 * The MCP transport's rules against DNS rebinding, before anything else runs. `Host` must name this
 * deployment (own-address.ts): a rebinding page sends its own name, in `Host` and `Origin` alike, so
 * the Origin rule alone would take it for the gateway's own origin. Then a request whose `Origin` is
 * present and not allowed is refused with 403. A request without `Origin` comes from no browser page
 * (desktop and agent clients send none) and goes on to authentication like any other. An allowed
 * page gets the CORS headers that let it read the answer (the Inspector's page calls /mcp directly).
 */
export function checkOrigin(mcp: McpAddress): RequestHandler {
  return (req, res, next) => {
    res.vary('Origin');
    if (!addressedHere(req, mcp.publicUrl)) {
      throw new AppError(
        ErrorCode.PermissionDenied,
        'This host does not serve /mcp: call the address in GATEWAY_PUBLIC_URL (or localhost)',
      );
    }
    const origin = req.get('origin');
    if (origin === undefined) {
      next();
      return;
    }
    if (!originAllowed(origin, mcp.allowedOrigins, ownOrigin(req, mcp.publicUrl))) {
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

/**
 * A CORS preflight from an allowed page (checkOrigin ran first): what it may send. No credential
 * needed. POST only: GET and DELETE answer 405 on this stateless endpoint.
 */
export const answerPreflight: RequestHandler = (_req, res) => {
  res.setHeader('Access-Control-Allow-Methods', 'POST');
  res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
  res.setHeader('Access-Control-Max-Age', '600');
  res.status(204).end();
};
