import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * How long the receiver takes to answer, as one doing some work would: deliveries are then in flight
 * (sent, not yet recorded) when the webhooks service is killed. 16 at a time to one endpoint
 * (WEBHOOKS_ENDPOINT_CONCURRENCY) is 160 a second, above any row's write rate.
 */
const ANSWER_AFTER_MS = 100;

/** What arrived for a set of event ids. */
export interface ReceivedDeliveries {
  /** Event id → the webhook-ids it arrived under (one, however often it was sent). */
  ids: Map<string, Set<string>>;
  /** Requests that carried them, first sends and sends again. */
  requests: number;
  /** Event ids whose delivery was cut before it was answered, and has not come again since. */
  cutNotResent: number;
}

/**
 * The tenant's webhook receiver for the whole suite: an HTTP server on 127.0.0.1 (the stack allows
 * loopback for it) that checks each request as a customer would, with the `standardwebhooks` library,
 * and records each `memory.retained` by the write's event id (the SDK sends the idempotency key as the
 * event id, so a row's writes are its key prefix's). It answers 204 after ANSWER_AFTER_MS; a request
 * the library refuses gets 400 (and is counted). Deliveries the sender was waiting on when it was
 * killed (`cutInFlight`) must come again: the receiver notes whether they did.
 */
export class WebhookReceiver {
  private readonly ids = new Map<string, Set<string>>();
  private readonly requests = new Map<string, number>();
  /** When each event id's first request arrived whole (epoch ms). */
  private readonly firstAt = new Map<string, number>();
  /** Event ids whose request was unanswered when its sender was killed, not received again since. */
  private readonly cut = new Set<string>();
  /** Requests whose signature the library refused. */
  refused = 0;
  /** Requests received whole and not yet answered: their event ids. */
  private readonly unanswered = new Set<{ eventId: string }>();
  private verifier: Webhook | undefined;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const taken = receiver.take(Buffer.concat(chunks).toString('utf8'), req.headers);
        const held = { eventId: taken.eventId ?? '' };
        receiver.unanswered.add(held);
        setTimeout(() => {
          receiver.unanswered.delete(held);
          if (!res.destroyed) res.writeHead(taken.ok ? 204 : 400).end();
        }, ANSWER_AFTER_MS);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/faults`;
  }

  /** The endpoint's secret, as its create answer showed it once. */
  trust(secret: string): void {
    this.verifier = new Webhook(secret);
  }

  private take(body: string, headers: NodeJS.Dict<string | string[]>): { ok: boolean; eventId?: string } {
    let payload: { type?: string; data?: { event_id?: unknown } };
    try {
      if (!this.verifier) throw new Error('no secret yet');
      payload = this.verifier.verify(body, headers as Record<string, string>) as typeof payload;
    } catch {
      this.refused++;
      return { ok: false };
    }
    const eventId = payload.data?.event_id;
    if (payload.type !== 'memory.retained' || typeof eventId !== 'string') return { ok: true };
    if (!this.firstAt.has(eventId)) this.firstAt.set(eventId, Date.now());
    const ids = this.ids.get(eventId) ?? new Set<string>();
    ids.add(String(headers['webhook-id']));
    this.ids.set(eventId, ids);
    this.requests.set(eventId, (this.requests.get(eventId) ?? 0) + 1);
    this.cut.delete(eventId); // sent again
    return { ok: true, eventId };
  }

  /** Deliveries received and not yet answered whose event id starts with `prefix`. */
  inFlight(prefix = ''): number {
    return [...this.unanswered].filter((h) => h.eventId.startsWith(prefix)).length;
  }

  /**
   * The sender is about to be killed: the deliveries it is waiting on (event id starting with
   * `prefix`) cannot be recorded as sent, so each must come again. Returns how many.
   */
  cutInFlight(prefix: string): number {
    const cut = [...this.unanswered].filter((h) => h.eventId.startsWith(prefix));
    for (const h of cut) this.cut.add(h.eventId);
    return cut.length;
  }

  /** When an event id's first delivery arrived, if it has. */
  arrivedAt(eventId: string): number | undefined {
    return this.firstAt.get(eventId);
  }

  deliveriesOf(eventIds: Iterable<string>): ReceivedDeliveries {
    const ids = new Map<string, Set<string>>();
    let requests = 0;
    let cutNotResent = 0;
    for (const eventId of eventIds) {
      const got = this.ids.get(eventId);
      if (got) ids.set(eventId, got);
      requests += this.requests.get(eventId) ?? 0;
      if (this.cut.has(eventId)) cutNotResent++;
    }
    return { ids, requests, cutNotResent };
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
