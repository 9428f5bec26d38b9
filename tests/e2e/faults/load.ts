import { TextMemory, TextMemoryError } from '../../../libs/clients/sdk/src/index.js';

/** One HTTP exchange as the client saw it: every attempt the SDK made, retries included. */
export interface Attempt {
  op: 'write' | 'recall';
  startedAt: number;
  ms: number;
  /** 0: no answer (the connection failed or the client's timeout fired). */
  status: number;
  /** The envelope's `retryable`, on a failed answer. */
  retryable?: boolean;
  retryAfter?: string | null;
  /** The envelope's `details.code`, or the socket error's code when there was no answer. */
  code?: string;
}

export interface LoadOptions {
  baseUrl: string;
  apiKey: string;
  namespace: string;
  /** Idempotency keys (and event ids) are `<prefix>-<n>`: one row's writes, apart from any other's. */
  keyPrefix: string;
  concurrency: number;
  /** Every n-th call is a recall, the rest are writes. */
  recallEvery: number;
  /** Pause between a worker's calls, to leave the shared CPU some room. */
  thinkMs: number;
  /** The SDK's per-attempt timeout: past the bound the suite asserts, so a hang is measured, not waited out. */
  attemptTimeoutMs: number;
}

const WORDS = 'tea coffee lisbon porto invoice refund locker green peanut ticket river window'.split(' ');
const op = (url: string): Attempt['op'] => (url.includes('/recall') ? 'recall' : 'write');

/**
 * The client side of a fault row: workers writing (each with its own idempotency key) and recalling
 * through the SDK with its own retry policy. A fetch wrapper records every attempt, so the suite can
 * judge each failure the client saw, not just the last one the SDK surfaced.
 */
export class Load {
  readonly attempts: Attempt[] = [];
  readonly acked = new Set<string>();
  /** When each acknowledged write's answer arrived (epoch ms): a webhook's delivery time starts there. */
  readonly ackedAt = new Map<string, number>();
  /** Writes the SDK gave up on (its retries spent): the application re-sends them with the same key. */
  readonly gaveUp = new Map<string, TextMemoryError>();
  readonly nonRetryable: TextMemoryError[] = [];
  recallsAcked = 0;
  recallsGaveUp = 0;
  private inFlightRequests = 0;
  private next = 0;
  private stopping = false;
  private workers: Promise<void>[] = [];
  private readonly client: TextMemory;

  constructor(private readonly options: LoadOptions) {
    this.client = new TextMemory({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      timeoutMs: options.attemptTimeoutMs,
      fetch: this.recordingFetch,
    });
  }

  /** HTTP requests sent and not yet answered (calls waiting out a backoff are not among them). */
  get inFlight(): number {
    return this.inFlightRequests;
  }

  /**
   * When the first write sent at or after `since` (epoch ms) was answered 2xx, or undefined: how long
   * after a fault the service took writes again, not a write that was already on its way.
   */
  firstWriteAnswered(since: number): number | undefined {
    let first: number | undefined;
    for (const a of this.attempts) {
      if (a.op !== 'write' || a.status < 200 || a.status >= 300 || a.startedAt < since) continue;
      const at = a.startedAt + a.ms;
      if (first === undefined || at < first) first = at;
    }
    return first;
  }

  get written(): number {
    return this.acked.size + this.gaveUp.size;
  }

  start(): void {
    this.workers = Array.from({ length: this.options.concurrency }, () => this.work());
  }

  /** Stop issuing calls; resolves once every call in flight has ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.workers);
  }

  /**
   * What an application does with a write whose outcome it does not know: send it again with the same
   * key until it is answered (spec, Errors rule 3). Returns the keys still unanswered at the deadline.
   */
  async resendUnanswered(deadlineMs: number): Promise<string[]> {
    const until = Date.now() + deadlineMs;
    for (const key of [...this.gaveUp.keys()]) {
      while (Date.now() < until && this.gaveUp.has(key)) {
        await this.write(Number(key.slice(this.options.keyPrefix.length + 1)));
        if (this.gaveUp.has(key)) await new Promise((r) => setTimeout(r, 500));
      }
    }
    return [...this.gaveUp.keys()];
  }

  private async work(): Promise<void> {
    while (!this.stopping) {
      const n = this.next++;
      if (n % this.options.recallEvery === this.options.recallEvery - 1) await this.recall(n);
      else await this.write(n);
      await new Promise((r) => setTimeout(r, this.options.thinkMs));
    }
  }

  private text(n: number): string {
    return `fault note ${n}: ${WORDS[n % WORDS.length]} ${WORDS[(n * 7) % WORDS.length]}`;
  }

  private async write(n: number): Promise<void> {
    const key = `${this.options.keyPrefix}-${n}`;
    try {
      await this.client.memory.write({
        namespace: this.options.namespace,
        text: this.text(n),
        idempotency_key: key,
        // A fixed time: a re-sent write must carry the same body, or it is a 409 conflict.
        occurred_at: '2026-11-25T00:00:00.000Z',
      });
      this.acked.add(key);
      if (!this.ackedAt.has(key)) this.ackedAt.set(key, Date.now());
      this.gaveUp.delete(key);
    } catch (err) {
      this.failed(err, () => this.gaveUp.set(key, err as TextMemoryError));
    }
  }

  private async recall(n: number): Promise<void> {
    try {
      await this.client.memory.recall({ namespace: this.options.namespace, query: this.text(n), top_k: 5 });
      this.recallsAcked++;
    } catch (err) {
      this.failed(err, () => this.recallsGaveUp++);
    }
  }

  /** A retryable failure the SDK gave up on is the application's to retry; any other is a finding. */
  private failed(err: unknown, retryLater: () => void): void {
    if (!(err instanceof TextMemoryError)) throw err;
    if (err.retryable) retryLater();
    else this.nonRetryable.push(err);
  }

  private readonly recordingFetch: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const startedAt = Date.now();
    const record = (fields: Omit<Attempt, 'op' | 'startedAt' | 'ms'>) =>
      this.attempts.push({ op: op(url), startedAt, ms: Date.now() - startedAt, ...fields });
    const noAnswer = (err: unknown) => {
      record({ status: 0, code: (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name });
      return err;
    };
    let response: Response;
    let text: string;
    this.inFlightRequests++;
    try {
      response = await fetch(input, init);
      // Read the body here, so the attempt's time covers the whole answer, as the SDK's timeout does.
      text = await response.text();
    } catch (err) {
      throw noAnswer(err);
    } finally {
      this.inFlightRequests--;
    }
    if (response.ok) record({ status: response.status });
    else {
      let body: { retryable?: unknown; details?: { code?: unknown } } = {};
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        // not our envelope: judged below as not retryable
      }
      record({
        status: response.status,
        retryable: body.retryable === true,
        retryAfter: response.headers.get('retry-after'),
        code: typeof body.details?.code === 'string' ? body.details.code : undefined,
      });
    }
    return new Response(text, { status: response.status, headers: response.headers });
  };
}
