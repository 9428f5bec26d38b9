import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export const WEBHOOK_ENDPOINTS = '/api/v1/control/webhook-endpoints';

/** One request a receiver got: what a customer's server would see. */
export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A customer's webhook receiver: a real HTTP server on 127.0.0.1 (the stack allows loopback for it),
 * recording every request and answering each path with the statuses queued for it, then 200.
 */
export function useReceiver() {
  const received: ReceivedWebhook[] = [];
  const answers = new Map<string, number[]>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = answers.get(path)?.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
    });
  });
  const receiver = {
    url: '',
    /** Requests that reached `path`, in arrival order. */
    at: (path: string) => received.filter((r) => r.path === path),
    /** The next requests to `path` are answered with these statuses, in order; later ones with 200. */
    answer: (path: string, ...statuses: number[]) => answers.set(path, statuses),
  };
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return receiver;
}
