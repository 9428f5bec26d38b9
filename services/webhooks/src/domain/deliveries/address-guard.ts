import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The error an attempt records when the receiver's address is not one deliveries may reach. */
export const ADDRESS_NOT_ALLOWED = 'address_not_allowed';

export class AddressNotAllowed extends Error {
  readonly code = ADDRESS_NOT_ALLOWED;
  constructor(readonly address: string) {
    super(`${ADDRESS_NOT_ALLOWED}: ${address}`);
  }
}

/**
 * The IPv4-compatible block (RFC 4291 2.5.5.1, deprecated since 2006): `::a00:1` carries 10.0.0.1 in
 * its last 32 bits and some stacks route it there, yet ipaddr.js 2.5 calls it `unicast`. No receiver
 * needs it, so all of it is refused; `::` and `::1`, inside it, keep their own ranges.
 */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * IPv6 text as the URL parser writes it (hex groups, shortest form); IPv4 as given. ipaddr.js 2.5
 * reads the dotted tail of `::8.8.8.8` as if it were `::ffff:8.8.8.8`, so it is only given this form.
 */
function canonical(bare: string): string | undefined {
  if (!bare.includes(':')) return bare;
  const asHost = `http://[${bare}]/`;
  return URL.canParse(asHost) ? new URL(asHost).hostname.slice(1, -1) : undefined;
}

/**
 * May a delivery connect to this address? Only public unicast: ipaddr.js names every special range
 * (private, loopback, link-local, unique-local, carrier-grade NAT, multicast, unspecified, broadcast,
 * reserved, benchmarking, NAT64, the 6to4/Teredo relays, …), and anything it does not call `unicast`
 * is refused. An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged as the IPv4 address it reaches;
 * an IPv4-compatible one (::10.0.0.1) is refused whatever it carries.
 */
export function addressAllowed(address: string, allowLoopback: boolean): boolean {
  const bare = canonical(address.replace(/^\[|\]$/g, ''));
  if (bare === undefined || !ipaddr.isValid(bare)) return false;
  let parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  if (allowLoopback && range === 'loopback') return true;
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).match(IPV4_COMPATIBLE)) return false;
  return range === 'unicast';
}

/** A host written as an address in the URL, or undefined for a name. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return isIP(bare) ? bare : undefined;
}

type Resolve = (hostname: string, callback: (err: Error | null, addresses: LookupAddress[]) => void) => void;
const resolveAll: Resolve = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

/**
 * The connection's own name lookup: every address the name resolves to must be allowed, or the
 * connection fails before it is made. Checked here, when the socket connects, rather than once at
 * registration, so a name that later resolves inward (DNS rebinding) is still refused.
 */
export function guardedLookup(allowLoopback: boolean, resolve: Resolve = resolveAll): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, (err, found) => {
      if (err) return callback(err, '', 0);
      const family = options.family === 4 || options.family === 6 ? options.family : undefined;
      const addresses = found.filter((a) => family === undefined || a.family === family);
      const refused = addresses.find((a) => !addressAllowed(a.address, allowLoopback));
      if (refused) return callback(new AddressNotAllowed(refused.address), '', 0);
      const first = addresses[0];
      if (!first)
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, first.address, first.family);
    });
  };
}
