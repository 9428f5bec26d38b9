import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Tenant A's webhook receiver that takes every delivery and never answers it: each attempt holds its
 * sender until the sender's own attempt time-out. Stopping it cuts what it holds.
 */
export class HangingReceiver {
  /** Requests received (and left unanswered). */
  held = 0;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<HangingReceiver> {
    const server = createServer();
    const receiver = new HangingReceiver(server);
    server.on('request', (req) => {
      receiver.held++;
      req.resume(); // read the body, answer nothing
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/${path}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
