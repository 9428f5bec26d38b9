import type { CallOptions, RequestSpec, Transport } from '../http.js';
import type { BodyOf, OperationId, QueryOf, ResponseOf } from '../types.js';
import { WebhooksFamily } from './webhooks.js';

type Method = RequestSpec['method'];

/**
 * The control plane (`/api/v1/control`), with a session token: log in with `sessions.login`, or give
 * `sessionToken` to the client. `safe` marks the actions the API documents as idempotent (and
 * absolute PATCHes): only those are repeated after a lost answer; creations never are.
 */
export class ControlFamily {
  /** Webhook endpoints and their delivery log (owner or admin). */
  readonly webhooks: WebhooksFamily;

  constructor(private readonly http: Transport) {
    this.webhooks = new WebhooksFamily(http);
  }

  private call<K extends OperationId>(
    _operation: K,
    method: Method,
    path: string,
    parts: { json?: unknown; query?: object; safe?: boolean } = {},
    options?: CallOptions,
  ): Promise<ResponseOf<K>> {
    return this.http
      .request<ResponseOf<K>>(
        {
          method,
          path: `/api/v1/control${path}`,
          credential: 'session',
          safe: parts.safe ?? method === 'GET',
          ...(parts.json !== undefined ? { json: parts.json } : {}),
          ...(parts.query ? { query: parts.query } : {}),
        },
        options,
      )
      .then((answer) => answer.data);
  }

  readonly sessions = {
    /** Log in; the client keeps the session token for the control-plane calls that follow. */
    login: async (body: BodyOf<'login'>, options?: CallOptions): Promise<ResponseOf<'login'>> => {
      const { data } = await this.http.request<ResponseOf<'login'>>(
        { method: 'POST', path: '/api/v1/control/sessions', credential: 'none', safe: false, json: body },
        options,
      );
      this.http.sessionToken = data.token;
      return data;
    },
    /** End this session (its token fails at once) and forget it. */
    logout: async (options?: CallOptions): Promise<void> => {
      await this.call('logout', 'DELETE', '/sessions/current', { safe: true }, options);
      this.http.sessionToken = undefined;
    },
  };

  readonly account = {
    get: (options?: CallOptions) => this.call('getAccount', 'GET', '/account', {}, options),
    changePassword: (body: BodyOf<'changePassword'>, options?: CallOptions) =>
      this.call('changePassword', 'POST', '/account/password', { json: body }, options),
  };

  readonly users = {
    list: (options?: CallOptions) => this.call('listUsers', 'GET', '/users', {}, options),
    get: (id: string, options?: CallOptions) => this.call('getUser', 'GET', `/users/${enc(id)}`, {}, options),
    create: (body: BodyOf<'createUser'>, options?: CallOptions) =>
      this.call('createUser', 'POST', '/users', { json: body }, options),
    update: (id: string, body: BodyOf<'updateUser'>, options?: CallOptions) =>
      this.call('updateUser', 'PATCH', `/users/${enc(id)}`, { json: body, safe: true }, options),
  };

  readonly apiKeys = {
    list: (options?: CallOptions) => this.call('listApiKeys', 'GET', '/api-keys', {}, options),
    get: (id: string, options?: CallOptions) =>
      this.call('getApiKey', 'GET', `/api-keys/${enc(id)}`, {}, options),
    /** The full key is in this answer only. */
    create: (body: BodyOf<'createApiKey'>, options?: CallOptions) =>
      this.call('createApiKey', 'POST', '/api-keys', { json: body }, options),
    update: (id: string, body: BodyOf<'updateApiKey'>, options?: CallOptions) =>
      this.call('updateApiKey', 'PATCH', `/api-keys/${enc(id)}`, { json: body, safe: true }, options),
    revoke: (id: string, options?: CallOptions) =>
      this.call('revokeApiKey', 'POST', `/api-keys/${enc(id)}/revoke`, { safe: true }, options),
    /** A new key with the same settings; the old one is revoked. Not repeated after a lost answer. */
    rotate: (id: string, options?: CallOptions) =>
      this.call('rotateApiKey', 'POST', `/api-keys/${enc(id)}/rotate`, {}, options),
    attachStorage: (id: string, body: BodyOf<'attachStorageConnection'>, options?: CallOptions) =>
      this.call(
        'attachStorageConnection',
        'PUT',
        `/api-keys/${enc(id)}/storage-connection`,
        { json: body, safe: true },
        options,
      ),
    detachStorage: (id: string, options?: CallOptions) =>
      this.call(
        'detachStorageConnection',
        'DELETE',
        `/api-keys/${enc(id)}/storage-connection`,
        { safe: true },
        options,
      ),
  };

  readonly storageConnections = {
    list: (options?: CallOptions) =>
      this.call('listStorageConnections', 'GET', '/storage-connections', {}, options),
    get: (id: string, options?: CallOptions) =>
      this.call('getStorageConnection', 'GET', `/storage-connections/${enc(id)}`, {}, options),
    create: (body: BodyOf<'createStorageConnection'>, options?: CallOptions) =>
      this.call('createStorageConnection', 'POST', '/storage-connections', { json: body }, options),
    update: (id: string, body: BodyOf<'updateStorageConnection'>, options?: CallOptions) =>
      this.call(
        'updateStorageConnection',
        'PATCH',
        `/storage-connections/${enc(id)}`,
        { json: body, safe: true },
        options,
      ),
  };

  readonly consent = {
    get: (options?: CallOptions) => this.call('getConsent', 'GET', '/consent', {}, options),
    grant: (options?: CallOptions) =>
      this.call('grantConsent', 'POST', '/consent/grant', { safe: true }, options),
    revoke: (options?: CallOptions) =>
      this.call('revokeConsent', 'POST', '/consent/revoke', { safe: true }, options),
    /** The audit trail of consent changes, newest first. */
    events: (options?: CallOptions) => this.call('consentHistory', 'GET', '/consent/events', {}, options),
  };

  readonly operatorTokens = {
    list: (options?: CallOptions) => this.call('listOperatorTokens', 'GET', '/operator-tokens', {}, options),
    /** The token is in this answer only. */
    create: (body: BodyOf<'createOperatorToken'>, options?: CallOptions) =>
      this.call('createOperatorToken', 'POST', '/operator-tokens', { json: body }, options),
    revoke: (id: string, options?: CallOptions) =>
      this.call('revokeOperatorToken', 'POST', `/operator-tokens/${enc(id)}/revoke`, { safe: true }, options),
  };

  /** The tenant's usage over a lookback window, from the billing ledger. */
  usage(query?: QueryOf<'controlUsage'>, options?: CallOptions) {
    return this.call('controlUsage', 'GET', '/usage', query ? { query } : {}, options);
  }

  readonly billing = {
    charges: (query?: QueryOf<'listCharges'>, options?: CallOptions) =>
      this.call('listCharges', 'GET', '/billing/charges', query ? { query } : {}, options),
    voidCharge: (id: string, body: BodyOf<'voidCharge'>, options?: CallOptions) =>
      this.call(
        'voidCharge',
        'POST',
        `/billing/charges/${enc(id)}/void`,
        { json: body, safe: true },
        options,
      ),
    invoices: (options?: CallOptions) => this.call('listInvoices', 'GET', '/billing/invoices', {}, options),
    /** Roll up a closed month (idempotent per month). */
    closeInvoicePeriod: (body: BodyOf<'closeInvoicePeriod'>, options?: CallOptions) =>
      this.call('closeInvoicePeriod', 'POST', '/billing/invoices', { json: body, safe: true }, options),
  };
}

const enc = encodeURIComponent;
