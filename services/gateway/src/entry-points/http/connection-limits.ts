import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface PerAddressCap {
  /** Connections one peer address may hold at once; one more is closed as it is accepted. */
  maxPerAddress: number;
  /** Peers not capped here: the trusted proxies (GATEWAY_TRUST_PROXY), which carry many clients. */
  isExempt: (address: string) => boolean;
  onRefused: (address: string) => void;
}

/** `::ffff:203.0.113.7` (an IPv4 client on a dual-stack listener) is the same peer as `203.0.113.7`. */
const peerAddressOf = (socket: Socket) => socket.remoteAddress?.replace(/^::ffff:(?=\d+\.)/i, '');

/**
 * Caps the connections each peer address holds, on top of the server's global cap. A probe held all
 * 1,000 of GATEWAY_MAX_CONNECTIONS from one address (headers and one byte of a 100-byte body, each),
 * opened in 1.2 s, and every other client was reset while they were held. Counted on the socket's peer
 * at accept, before a byte is read, so a client cannot choose the address it is counted under; over
 * the cap the socket is destroyed unanswered (an answer would mean reading its request first). Other
 * addresses' connections are never touched.
 */
export function capConnectionsPerAddress(server: Server, cap: PerAddressCap): void {
  const held = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = peerAddressOf(socket);
    if (address === undefined || cap.isExempt(address)) return;
    const count = held.get(address) ?? 0;
    if (count >= cap.maxPerAddress) {
      socket.destroy();
      cap.onRefused(address);
      return;
    }
    held.set(address, count + 1);
    socket.once('close', () => {
      const left = (held.get(address) ?? 1) - 1;
      if (left > 0) held.set(address, left);
      else held.delete(address);
    });
  });
}
