import { checkedCredential } from '../credentials.js';
import { TextMemoryError } from '../errors.js';
import type { CallOptions, Transport } from '../http.js';
import type { HealthReport, QueryOf, RequestEvent, ResponseOf, SmokeTestReport } from '../types.js';

export interface ExportQuery {
  /** Namespaces to export (up to 100); every namespace of the tenant when absent. */
  namespace?: string | string[];
}

export interface SmokeTestOptions extends CallOptions {
  /** The tenant's operator token (`tmo_…`); defaults to the client's `operatorToken`. */
  operatorToken?: string;
}

export interface EventsIterationQuery
  extends Pick<QueryOf<'events'>, 'operation' | 'outcome' | 'status' | 'from' | 'to'> {
  /** Rows per page (the server's default is 100). */
  limit?: number;
  /** Start here instead of the newest record (of those the filters match). */
  offset?: number;
}

/** Health, capabilities, telemetry, the namespace listing, export and the smoke test. */
export class InfrastructureFamily {
  constructor(
    private readonly http: Transport,
    private readonly operatorToken: () => string | undefined,
  ) {}

  private get<T>(path: string, credential: 'none' | 'either', options?: CallOptions, query?: object) {
    return this.http
      .request<T>({ method: 'GET', path: `/api/v1${path}`, credential, safe: true, query }, options)
      .then((answer) => answer.data);
  }

  /**
   * Readiness (public, no credential). `available: true` means the services writes need answered;
   * when they did not, the server's 503 carries the same report, and it is returned, not thrown:
   * a health check asks for the state, it does not wait for a better one.
   */
  health(options?: CallOptions) {
    return this.http
      .request<HealthReport>(
        {
          method: 'GET',
          path: '/api/v1/infrastructure/health',
          credential: 'none',
          safe: true,
          answers: [503],
        },
        options,
      )
      .then((answer) => answer.data);
  }

  /** Liveness (public): the gateway process runs; it asks none of its dependencies. */
  live(options?: CallOptions) {
    return this.get<ResponseOf<'liveness'>>('/infrastructure/health/live', 'none', options);
  }

  /** Operations, guarantees, limitations and input limits (public). */
  capabilities(options?: CallOptions) {
    return this.get<ResponseOf<'capabilities'>>('/infrastructure/capabilities', 'none', options);
  }

  /**
   * The release record, as the deployment is now: without a credential the public view (deployment,
   * contract and schema versions, the capability manifest, health by entry); with a live operator
   * token (`headers: { 'X-Operator-Token': token }`) the operator view, which adds each database's
   * latest migration and health's readings.
   */
  release(options?: CallOptions) {
    return this.get<ResponseOf<'release'>>('/infrastructure/release', 'none', options);
  }

  /** The OpenAPI document the deployment serves (public). */
  openapi(options?: CallOptions) {
    return this.get<ResponseOf<'openapi'>>('/openapi.json', 'none', options);
  }

  /** Combined health, monitoring, anomalies and consent. */
  status(options?: CallOptions) {
    return this.get<ResponseOf<'status'>>('/infrastructure/status', 'either', options);
  }

  /**
   * One page of the redacted request history, newest first; `operation`, `outcome`, `status`, `from`
   * and `to` filter it on the server (send the same filters with the page's `next_cursor`).
   */
  eventsPage(query?: QueryOf<'events'>, options?: CallOptions) {
    return this.get<ResponseOf<'events'>>('/infrastructure/events', 'either', options, query);
  }

  /**
   * Every record of the history from `offset` on, fetching page after page as the loop asks:
   * `for await (const event of tm.infrastructure.events({ outcome: 'failed' })) …`. Pages after the first follow
   * `next_cursor`, so requests arriving meanwhile neither repeat nor skip a record.
   */
  async *events(query: EventsIterationQuery = {}, options?: CallOptions): AsyncGenerator<RequestEvent> {
    const { offset, limit, ...filters } = query;
    // Every page carries the filters: a cursor names a position in the history, not a selection.
    const each = { ...(limit ? { limit } : {}), ...filters };
    let page = await this.eventsPage({ ...each, offset: offset ?? 0 }, options);
    yield* page.data;
    while (page.paging.next_cursor) {
      page = await this.eventsPage({ ...each, cursor: page.paging.next_cursor }, options);
      yield* page.data;
    }
  }

  /**
   * One page of the tenant's namespaces that hold records, by name, each with its record counts and
   * last retention time. `paging.next_cursor`, sent back as `cursor`, gives the next page (null on
   * the last).
   */
  namespaces(query?: QueryOf<'namespaces'>, options?: CallOptions) {
    return this.get<ResponseOf<'namespaces'>>('/infrastructure/namespaces', 'either', options, query);
  }

  /** Request volume, operations and charges over a lookback window, from the billing ledger. */
  usage(query?: QueryOf<'usage'>, options?: CallOptions) {
    return this.get<ResponseOf<'usage'>>('/infrastructure/usage', 'either', options, query);
  }

  /** Latency percentiles, request quality and operation mix over a window. */
  metrics(query?: QueryOf<'metrics'>, options?: CallOptions) {
    return this.get<ResponseOf<'metrics'>>('/infrastructure/metrics', 'either', options, query);
  }

  /** Thresholded signals over a window (`anomaly_count: 0`: none crossed). */
  anomalies(query?: QueryOf<'anomalies'>, options?: CallOptions) {
    return this.get<ResponseOf<'anomalies'>>('/infrastructure/anomalies', 'either', options, query);
  }

  /** The export as one parsed document: fine for small tenants; use `exportTo` for large ones. */
  async export(query: ExportQuery = {}, options?: CallOptions): Promise<ResponseOf<'export'>> {
    return this.get<ResponseOf<'export'>>('/infrastructure/export', 'either', options, query);
  }

  /**
   * Stream the export's JSON into `destination` as it arrives (a WritableStream: a browser file
   * handle, a `Writable.toWeb(…)`; `@text-memory/sdk/node` has `exportToFile`). Resolves with the
   * bytes written. The per-attempt timeout covers the wait for the answer, not the transfer; an
   * export the server could not finish is broken off, and the returned promise rejects.
   */
  async exportTo(
    destination: WritableStream<Uint8Array>,
    query: ExportQuery = {},
    options?: CallOptions,
  ): Promise<{ bytes: number; request_id: string | undefined }> {
    const { data: response } = await this.http.request<Response>(
      {
        method: 'GET',
        path: '/api/v1/infrastructure/export',
        credential: 'either',
        safe: true,
        query,
        stream: true,
      },
      options,
    );
    if (!response.body) throw emptyBody(response);
    let bytes = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const pipeOptions = options?.signal ? { signal: options.signal } : {};
    await response.body.pipeThrough(counter).pipeTo(destination, pipeOptions);
    return { bytes, request_id: response.headers.get('x-request-id') ?? undefined };
  }

  /**
   * The authorized diagnostic (write, recall, delete in a reserved namespace); needs an operator token.
   * Resolves with the report whether every step passed (200) or one failed (the server's 503 carries
   * the report and the error fields): read `outcome`, and `steps` for which step failed. A failed run
   * is not retried (it ran, and its write and recall are billed). A 503 without a report (the gateway
   * could not run the test at all) throws a retryable TextMemoryError, after the usual retries.
   */
  async smokeTest(options?: SmokeTestOptions): Promise<SmokeTestReport> {
    const { operatorToken, ...callOptions } = options ?? {};
    const token = checkedCredential('operatorToken', operatorToken ?? this.operatorToken());
    const { data } = await this.http.request<SmokeTestReport>(
      {
        method: 'POST',
        path: '/api/v1/infrastructure/smoke-test',
        credential: 'apiKey',
        // Metered: a lost answer is not repeated blindly.
        safe: false,
        headers: { 'x-operator-token': token },
        answers: (status, body) => status === 503 && isSmokeTestReport(body),
      },
      callOptions,
    );
    return data;
  }
}

/** A smoke test's report, as the route's 503 carries it; the gateway's other 503s are envelopes only. */
const isSmokeTestReport = (body: unknown): body is SmokeTestReport =>
  typeof body === 'object' &&
  body !== null &&
  Array.isArray((body as { steps?: unknown }).steps) &&
  typeof (body as { outcome?: unknown }).outcome === 'string';

const emptyBody = (response: Response) =>
  new TextMemoryError({
    status: response.status,
    error: 'The export answer had no body',
    code: 'invalid_response',
    retryable: false,
    request_id: response.headers.get('x-request-id') ?? undefined,
  });
