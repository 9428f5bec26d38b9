import type { Request } from 'express';

/**
 * The client's address: the socket's peer, or, when that peer is a proxy named in GATEWAY_TRUST_PROXY,
 * the address it reports in X-Forwarded-For (Express's `trust proxy`, set in server.ts). Without a
 * trusted proxy the header is ignored, so a client cannot pick the address it is counted under.
 */
export function clientAddressOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
