import { isIPv6 } from 'node:net';
import type { Request } from 'express';

/** Names a DNS rebinding attack can never put in `Host`: a page's own name is what its browser sends. */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether the request is addressed to this deployment: `Host` (or a trusted proxy's X-Forwarded-Host)
 * names the configured public URL's host (GATEWAY_PUBLIC_URL) or a loopback name, on any port. A page
 * that rebinds its own name to the gateway's address sends its own name, and is refused.
 */
export function addressedHere(req: Request, publicUrl: string | undefined): boolean {
  const { hostname } = req;
  if (LOOPBACK_NAMES.has(hostname)) return true;
  return publicUrl !== undefined && hostname === new URL(publicUrl).hostname;
}

/**
 * The origin clients reach the gateway at (`https://memory.example.com`): the configured public URL,
 * else the request's own origin when it is a loopback name, else `http://localhost:<port>`. Never a
 * foreign `Host`: it goes into the 401 challenge, the metadata document and `status`'s answer.
 */
export function ownOrigin(req: Request, publicUrl: string | undefined): string {
  if (publicUrl !== undefined) return publicUrl;
  const requested = `${req.protocol}://${req.host}`;
  if (LOOPBACK_NAMES.has(req.hostname) && URL.canParse(requested)) return new URL(requested).origin;
  return `http://localhost:${req.socket.localPort}`;
}

/**
 * This instance's own address, as the connection that brought `req` reached it: the remote MCP
 * endpoint sends its tools' API calls there, so they never leave the machine or reach another
 * instance, whatever address the gateway listens on (GATEWAY_HOST).
 */
export function loopbackBaseUrl(req: Request): string {
  const { localAddress = '127.0.0.1', localPort } = req.socket;
  const address = localAddress.startsWith('::ffff:') ? localAddress.slice(7) : localAddress;
  // An IPv6 address goes in brackets, with a zone's `%` escaped (fe80::1%eth0).
  const host = isIPv6(address) ? `[${address.replace('%', '%25')}]` : address;
  return `http://${host}:${localPort}`;
}
