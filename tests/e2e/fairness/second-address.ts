import { Agent, request } from 'node:http';

/**
 * Tenant A's side of the loopback: every request and connection of A leaves from 127.0.0.2, B's load
 * from 127.0.0.1 (Node's default), so the gateway counts them under different client addresses, as
 * two customers behind two addresses would be. Loopback only: 127.0.0.0/8 is all local on Linux.
 */
export const A_ADDRESS = '127.0.0.2';
/**
 * The login flood's source: a stranger of its own, since the flood spends its address's failed-login
 * allowance (100 per 15 minutes) and A's next rows log in from 127.0.0.2.
 */
export const STRANGER_ADDRESS = '127.0.0.3';

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * A small JSON client over node:http (fetch cannot choose its source address without undici's Agent)
 * that counts what A was answered, by status and error code, for the row's notes.
 */
export class AddressedClient {
  private readonly agent: Agent;
  private readonly url: URL;
  readonly answers = new Map<string, number>();

  constructor(
    baseUrl: string,
    readonly localAddress: string,
  ) {
    this.url = new URL(baseUrl);
    this.agent = new Agent({ keepAlive: true, maxSockets: 32, localAddress });
  }

  get port(): number {
    return Number(this.url.port);
  }

  get host(): string {
    return this.url.hostname;
  }

  json(method: string, path: string, body: unknown, token?: string, timeoutMs = 60_000): Promise<Answer> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return this.send(method, path, payload, 'application/json', token, timeoutMs);
  }

  /** A multipart form (fields, then one file) serialised by the platform's FormData, sent from A's address. */
  async form(path: string, form: FormData, token: string, timeoutMs = 120_000): Promise<Answer> {
    const encoded = new Response(form);
    const bytes = Buffer.from(await encoded.arrayBuffer());
    return this.send('POST', path, bytes, String(encoded.headers.get('content-type')), token, timeoutMs);
  }

  /** The answers as `201 ×3, 429 login_throttled ×40`. */
  summary(): string {
    return [...this.answers].map(([kind, n]) => `${kind} ×${n}`).join(', ') || 'none';
  }

  close(): void {
    this.agent.destroy();
  }

  private send(
    method: string,
    path: string,
    payload: Buffer | undefined,
    contentType: string,
    token: string | undefined,
    timeoutMs: number,
  ): Promise<Answer> {
    return new Promise((resolve) => {
      const req = request(
        {
          host: this.url.hostname,
          port: this.url.port,
          path,
          method,
          agent: this.agent,
          localAddress: this.localAddress,
          timeout: timeoutMs,
          headers: {
            ...(payload && { 'content-type': contentType, 'content-length': payload.length }),
            ...(token && { authorization: `Bearer ${token}` }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            let body: Record<string, unknown> = {};
            try {
              body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
            } catch {
              // not JSON: counted by status alone
            }
            const code = (body.details as { code?: unknown } | undefined)?.code;
            this.count(`${res.statusCode}${typeof code === 'string' ? ` ${code}` : ''}`);
            resolve({ status: res.statusCode ?? 0, body });
          });
          res.on('error', () => resolve(this.noAnswer('cut')));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (err: NodeJS.ErrnoException) => resolve(this.noAnswer(err.code ?? err.message)));
      req.end(payload);
    });
  }

  private noAnswer(why: string): Answer {
    this.count(`no answer (${why})`);
    return { status: 0, body: {} };
  }

  private count(kind: string): void {
    this.answers.set(kind, (this.answers.get(kind) ?? 0) + 1);
  }
}
