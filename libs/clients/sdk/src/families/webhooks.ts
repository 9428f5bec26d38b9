import type { CallOptions, RequestSpec, Transport } from '../http.js';
import type { BodyOf, OperationId, ResponseOf } from '../types.js';

/** Endpoints registered for the tenant's events, without their secret. */
export type WebhookEndpoint = ResponseOf<'getWebhookEndpoint'>;
/** The answer of `create`: the endpoint with its signing secret (`whsec_…`), shown only here. */
export type WebhookEndpointCreated = ResponseOf<'createWebhookEndpoint'>;
/** The answer of `rotateSecret`: the new secret, and until when the previous one also signs. */
export type WebhookSecretRotated = ResponseOf<'rotateWebhookSecret'>;
type CreateBody = BodyOf<'createWebhookEndpoint'>;
/**
 * What `create` takes: `description` ('' when left out) and `include_text` (false) are optional, as the
 * server defaults them (the generated type lists a defaulted field as required).
 */
export type WebhookEndpointInput = Omit<CreateBody, 'description' | 'include_text'> &
  Partial<Pick<CreateBody, 'description' | 'include_text'>>;
export type WebhookEndpointChange = BodyOf<'updateWebhookEndpoint'>;
export type WebhookEventType = WebhookEndpoint['events'][number];
/** One page of an endpoint's delivery log, newest first. */
export type WebhookDeliveryPage = ResponseOf<'listWebhookDeliveries'>;
/** One delivery: its message id (the `webhook-id` header), status and every attempt made. */
export type WebhookDelivery = WebhookDeliveryPage['data'][number];
export type WebhookAttempt = WebhookDelivery['attempts'][number];
export interface WebhookDeliveryQuery {
  /** Deliveries per page, 1-100 (server default 50). */
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
}

const BASE = '/api/v1/control/webhook-endpoints';

/**
 * Webhook endpoints and their delivery log (`/api/v1/control/webhook-endpoints`), with a
 * session of an owner or admin (others get 403). Repeated after a lost answer: the reads, `update`
 * (absolute values) and `redeliver` (it puts the delivery back to pending either way; receivers
 * deduplicate on `webhook-id`). Not repeated: `create` (a second endpoint), `rotateSecret` (a second
 * rotation would replace the secret whose answer was lost) and `delete` (a repeat would answer 404
 * for an endpoint the first one deleted).
 */
export class WebhooksFamily {
  constructor(private readonly http: Transport) {}

  private call<K extends OperationId>(
    _operation: K,
    method: RequestSpec['method'],
    path: string,
    parts: { json?: unknown; query?: object; safe?: boolean },
    options?: CallOptions,
  ): Promise<ResponseOf<K>> {
    return this.http
      .request<ResponseOf<K>>(
        {
          method,
          path: `${BASE}${path}`,
          credential: 'session',
          safe: parts.safe ?? method === 'GET',
          ...(parts.json !== undefined ? { json: parts.json } : {}),
          ...(parts.query ? { query: parts.query } : {}),
        },
        options,
      )
      .then((answer) => answer.data);
  }

  /** The tenant's endpoints (never their secrets). */
  list(options?: CallOptions) {
    return this.call('listWebhookEndpoints', 'GET', '', {}, options);
  }

  get(id: string, options?: CallOptions) {
    return this.call('getWebhookEndpoint', 'GET', `/${enc(id)}`, {}, options);
  }

  /**
   * Register an endpoint for some event types. The answer's `secret` (`whsec_…`) signs every delivery
   * and is never shown again: store it where the receiver verifies signatures.
   */
  create(body: WebhookEndpointInput, options?: CallOptions) {
    return this.call('createWebhookEndpoint', 'POST', '', { json: body }, options);
  }

  /** Change url, events, description or include_text; `enabled: true` re-enables it and clears `disabled_reason`. */
  update(id: string, body: WebhookEndpointChange, options?: CallOptions) {
    return this.call('updateWebhookEndpoint', 'PATCH', `/${enc(id)}`, { json: body, safe: true }, options);
  }

  /** Delete the endpoint with its deliveries and their log. */
  delete(id: string, options?: CallOptions) {
    return this.call('deleteWebhookEndpoint', 'DELETE', `/${enc(id)}`, { safe: false }, options);
  }

  /** A new signing secret, shown only in this answer; the previous one also signs for 24 hours. */
  rotateSecret(id: string, options?: CallOptions) {
    return this.call('rotateWebhookSecret', 'POST', `/${enc(id)}/rotate-secret`, {}, options);
  }

  /** One page of the endpoint's delivery log, newest first; `next_cursor` (null on the last) gives the next. */
  deliveriesPage(id: string, query?: WebhookDeliveryQuery, options?: CallOptions) {
    return this.call(
      'listWebhookDeliveries',
      'GET',
      `/${enc(id)}/deliveries`,
      query ? { query } : {},
      options,
    );
  }

  /**
   * Every delivery of the endpoint, newest first, fetching page after page (`limit` each) as the loop
   * asks: `for await (const d of tm.control.webhooks.deliveries(id)) …`. Pages after the first follow
   * `next_cursor`, so deliveries made meanwhile neither repeat nor skip one.
   */
  async *deliveries(
    id: string,
    query: Omit<WebhookDeliveryQuery, 'cursor'> = {},
    options?: CallOptions,
  ): AsyncGenerator<WebhookDelivery> {
    const each = query.limit ? { limit: query.limit } : {};
    let page = await this.deliveriesPage(id, each, options);
    yield* page.data;
    while (page.next_cursor) {
      page = await this.deliveriesPage(id, { ...each, cursor: page.next_cursor }, options);
      yield* page.data;
    }
  }

  /**
   * Send a delivery again (any status) with a fresh retry schedule, keeping its attempts in the log;
   * answers it pending. 412 `precondition_failed` while the endpoint is disabled: enable it first.
   */
  redeliver(id: string, deliveryId: string, options?: CallOptions) {
    return this.call(
      'redeliverWebhook',
      'POST',
      `/${enc(id)}/deliveries/${enc(deliveryId)}/redeliver`,
      { safe: true },
      options,
    );
  }
}

const enc = encodeURIComponent;
