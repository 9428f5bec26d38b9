import ipaddr from 'ipaddr.js';

/**
 * Whose address a request counts against. IPv4 (an IPv4-mapped IPv6 address too) per address; IPv6
 * per /64, since one subscriber is usually given a whole /64 and would otherwise have 2^64 addresses
 * to spread guesses over. Anything unreadable counts as itself.
 */
export function addressBucketOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${parsed.toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}
