import { headerValueProblem, unsendable } from './credentials.js';
import { errorFromResponse, TextMemoryError } from './errors.js';
import { Redaction } from './redaction.js';
import {
  abortedError,
  backoffMs,
  type RetryOptions,
  type RetryPolicy,
  resolvePolicy,
  retryAfterMs,
  shouldRetry,
  sleep,
} from './retry.js';

/** Options every method takes as its last argument; each overrides the client's for that call. */
export interface CallOptions extends RetryOptions {
  /** Cancels the call: the attempt in flight is aborted and no retry follows. */
  signal?: AbortSignal;
  /** Sent as X-Request-Id (1–200 printable ASCII characters, else the server answers 400); the server generates one when absent. */
  requestId?: string;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
}

export interface RetryEvent {
  /** The attempt that failed, from 1. */
  attempt: number;
  error: TextMemoryError;
  delayMs: number;
}

/** Which credential a route takes: API key (data plane), session (control plane), either, or none. */
export type Credential = 'apiKey' | 'session' | 'either' | 'none';

type QueryValue = string | number | boolean | readonly string[] | null | undefined;

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  credential: Credential;
  /** Safe to send again after a lost answer (GET, a keyed write, an idempotent action). */
  safe: boolean;
  query?: object;
  json?: unknown;
  /** A body made afresh for each attempt (a stream cannot be sent twice). */
  body?: () => { body: NonNullable<RequestInit['body']>; contentType?: string; streamed?: boolean };
  headers?: Record<string, string | undefined>;
  /** Return the response with its body unread (the export). */
  stream?: boolean;
  /**
   * Non-2xx answers whose body is the answer, returned without a retry: statuses (health's 503 is its
   * report), or a test of the status and the parsed body (a smoke test's 503 is one only when it holds
   * a report). Any other non-2xx answer becomes a TextMemoryError, retried by the policy.
   */
  answers?: readonly number[] | ((status: number, body: unknown) => boolean);
}

export interface Answer<T> {
  data: T;
  status: number;
  headers: Headers;
}

export interface TransportConfig extends RetryOptions {
  baseUrl: string;
  apiKey?: string;
  sessionToken?: string;
  fetch?: typeof fetch;
  headers?: Record<string, string>;
  onRetry?: (event: RetryEvent) => void;
}

/** One HTTP call with the retry policy; the families build on `request`. */
export class Transport {
  readonly baseUrl: string;
  apiKey: string | undefined;
  sessionToken: string | undefined;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly config: TransportConfig) {
    this.baseUrl = config.baseUrl.replace(/\/+$/, '');
    this.apiKey = config.apiKey;
    this.sessionToken = config.sessionToken;
    // Bound, so a browser's window.fetch is not called with another `this`.
    this.fetchImpl = config.fetch ?? globalThis.fetch.bind(globalThis);
  }

  policy(options?: CallOptions): RetryPolicy {
    return resolvePolicy(this.config, options);
  }

  url(path: string, query?: object): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries((query ?? {}) as Record<string, QueryValue>)) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const item of value) search.append(name, String(item));
      else search.append(name, String(value));
    }
    const qs = search.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }

  private token(credential: Credential): string | undefined {
    if (credential === 'none') return undefined;
    if (credential === 'session') return this.sessionToken ?? this.apiKey;
    return this.apiKey ?? this.sessionToken;
  }

  /**
   * The request's headers, each checked before fetch sees it: fetch refuses a value with a line break
   * by throwing an error that quotes it, and that value may be a credential. A refused one is a
   * validation error that names the header, never its value.
   */
  private headers(spec: RequestSpec, options: CallOptions | undefined, contentType?: string): Headers {
    const headers = new Headers();
    const set = (name: string, value: string) => {
      if (!HEADER_NAME.test(name))
        throw unsendable('headers', `${JSON.stringify(name)} is not a valid HTTP header name`);
      const problem = headerValueProblem(value);
      if (problem !== undefined)
        throw unsendable(
          `headers.${name}`,
          `The ${name} header cannot be sent: its value ${problem} (the value is not shown)`,
        );
      headers.set(name, value);
    };
    set('accept', 'application/json');
    for (const [name, value] of Object.entries(this.config.headers ?? {})) set(name, value);
    const token = this.token(spec.credential);
    if (token) set('authorization', `Bearer ${token}`);
    if (contentType) set('content-type', contentType);
    if (options?.requestId) set('x-request-id', options.requestId);
    for (const [name, value] of Object.entries({ ...spec.headers, ...options?.headers })) {
      if (value !== undefined) set(name, value);
    }
    return headers;
  }

  /**
   * What an error of this request must not repeat: its credentials, and the values of headers the
   * caller added (which may be credentials of their own); not the SDK's own plain ones (accept,
   * content-type, the request id and idempotency key the caller is meant to see).
   */
  private redaction(spec: RequestSpec, headers: Headers | undefined): Redaction {
    const sent = (headers ? [...headers] : Object.entries(this.config.headers ?? {})).map(
      ([name, value]) => [name.toLowerCase(), value] as const,
    );
    return new Redaction(
      [
        this.token(spec.credential),
        ...sent.filter(([name]) => CREDENTIAL_HEADERS.has(name)).map(([, value]) => value),
      ],
      sent.filter(([name]) => !PLAIN_HEADERS.has(name)).map(([, value]) => value),
    );
  }

  async request<T>(spec: RequestSpec, options?: CallOptions): Promise<Answer<T>> {
    const policy = this.policy(options);
    const signal = options?.signal;
    const url = this.url(spec.path, spec.query);
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw abortedError(signal, attempt);
      const outcome = await this.attempt<T>(spec, options, url, policy);
      if (!(outcome instanceof TextMemoryError)) return outcome;
      outcome.attempts = attempt + 1;
      if (signal?.aborted) throw abortedError(signal, attempt + 1);
      if (!shouldRetry(outcome, attempt, policy, spec.safe)) throw outcome;
      const delayMs = outcome.retryAfter ?? backoffMs(attempt, policy);
      this.config.onRetry?.({ attempt: attempt + 1, error: outcome, delayMs });
      await sleep(delayMs, signal);
    }
  }

  /** One attempt: the answer, or the error it came to (thrown only for an abort). */
  private async attempt<T>(
    spec: RequestSpec,
    options: CallOptions | undefined,
    url: string,
    policy: RetryPolicy,
  ): Promise<Answer<T> | (TextMemoryError & { retryAfter?: number })> {
    const controller = new AbortController();
    const signal = options?.signal;
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, policy.timeoutMs);
    let keepListening = false;
    let headers: Headers | undefined;
    try {
      const made = spec.body?.();
      const json = spec.json === undefined ? undefined : JSON.stringify(spec.json);
      headers = this.headers(
        spec,
        options,
        made?.contentType ?? (json === undefined ? undefined : 'application/json'),
      );
      const init: RequestInit & { duplex?: 'half' } = {
        method: spec.method,
        headers,
        signal: controller.signal,
      };
      if (made) init.body = made.body;
      else if (json !== undefined) init.body = json;
      // Node's fetch (and the standard) require this for a streamed request body.
      if (made?.streamed) init.duplex = 'half';
      const response = await this.fetchImpl(url, init);
      if (spec.stream && response.ok) {
        // The body is the caller's to read; the per-attempt timeout covered the wait for headers.
        clearTimeout(timer);
        keepListening = true;
        return { data: response as T, status: response.status, headers: response.headers };
      }
      const text = await response.text();
      const body = parseBody(text, response.headers.get('content-type'));
      if (response.ok || isAnswer(spec.answers, response.status, body)) {
        if (body === INVALID) {
          return new TextMemoryError({
            status: response.status,
            error: 'The answer was not valid JSON',
            code: 'invalid_response',
            retryable: false,
            request_id: response.headers.get('x-request-id') ?? undefined,
          });
        }
        return { data: body as T, status: response.status, headers: response.headers };
      }
      const error: TextMemoryError & { retryAfter?: number } = errorFromResponse(
        response.status,
        body === INVALID ? undefined : body,
        response.headers.get('x-request-id'),
      );
      const wait = retryAfterMs(response.headers.get('retry-after'), policy);
      if (wait !== undefined) error.retryAfter = wait;
      return error;
    } catch (thrown) {
      if (signal?.aborted) return abortedError(signal);
      // A header refused before sending: its error names the header, not the value.
      if (thrown instanceof TextMemoryError) return thrown;
      const redaction = this.redaction(spec, headers);
      const cause = redaction.error(thrown);
      return new TextMemoryError({
        status: 0,
        error: timedOut
          ? `No answer within ${policy.timeoutMs} ms`
          : `Could not reach ${this.baseUrl}: ${cause instanceof Error ? cause.message : String(cause)}`,
        code: timedOut ? 'timeout' : 'connection_failed',
        // The outcome of a write is unknown: retry it with the same idempotency key.
        retryable: spec.safe,
        cause,
      });
    } finally {
      clearTimeout(timer);
      if (!keepListening) signal?.removeEventListener('abort', onAbort);
    }
  }
}

const INVALID = Symbol('invalid');

// RFC 9110's token: what a header name may be.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Headers the SDK sets whose values are no secret, left readable in errors. */
const PLAIN_HEADERS = new Set(['accept', 'content-type', 'x-request-id', 'idempotency-key', 'if-match']);

/** Headers whose values are credentials, masked in errors whatever their length. */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-api-key',
  'x-operator-token',
]);

/** Whether a non-2xx answer is the call's answer (RequestSpec.answers); an unreadable body never passes a test. */
function isAnswer(answers: RequestSpec['answers'], status: number, body: unknown): boolean {
  if (typeof answers === 'function') return body !== INVALID && answers(status, body);
  return answers?.includes(status) ?? false;
}

function parseBody(text: string, contentType: string | null): unknown {
  if (text === '') return undefined;
  if (contentType && !/json/i.test(contentType)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return INVALID;
  }
}
