import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { stackEnv } from './stack.js';

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
  const holds = new Map<string, () => void>();
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const onArrival = holds.get(path);
      if (onArrival) {
        holds.delete(path);
        held.push(res);
        onArrival();
        return;
      }
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
    /**
     * The next request to `path` is received and never answered; `onArrival` runs as its body ends,
     * before anything else the receiver does (to freeze the sender with the request sent, unanswered).
     */
    hold: (path: string, onArrival: () => void) => holds.set(path, onArrival),
  };
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return receiver;
}

/** One endpoint's deliveries as the webhooks database holds them (the outbox), oldest first. */
export async function outboxOf(endpointId: string) {
  const client = new pg.Client({ connectionString: stackEnv().webhooksDbUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ message_id: string; status: string; attempts: number }>(
      `SELECT d.message_id, d.status::text,
              (SELECT count(*)::int FROM webhook_attempt a WHERE a.delivery_id = d.id) AS attempts
         FROM webhook_delivery d WHERE d.endpoint_id = $1 ORDER BY d.created_at, d.id`,
      [endpointId],
    );
    return rows;
  } finally {
    await client.end();
  }
}
