import { isIPv6 } from 'node:net';
import type { Request } from 'express';

/**
 * The origin the client reached the gateway at (`https://memory.example.com`): the scheme and host of
 * the request, or of the forwarded headers of a proxy the configuration trusts (GATEWAY_TRUST_PROXY).
 */
export function ownOrigin(req: Request): string {
  return `${req.protocol}://${req.host}`;
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
