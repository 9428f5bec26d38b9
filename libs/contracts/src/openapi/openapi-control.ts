import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import {
  ChargeList,
  ChargeListQuery,
  ChargeView,
  InvoiceCreateRequest,
  InvoiceList,
  InvoiceView,
  UsageQuery,
  UsageResponse,
  VoidChargeRequest,
} from '../billing/billing.js';
import {
  AccountView,
  ApiKeyCreated,
  ApiKeyCreateRequest,
  ApiKeyList,
  ApiKeyUpdateRequest,
  ApiKeyView,
  ConsentHistory,
  ConsentView,
  LoginRequest,
  OperatorTokenCreated,
  OperatorTokenCreateRequest,
  OperatorTokenList,
  OperatorTokenView,
  PasswordChangeRequest,
  SessionCreated,
  StorageAttachRequest,
  StorageConnectionCreateRequest,
  StorageConnectionList,
  StorageConnectionUpdateRequest,
  StorageConnectionView,
  UserCreateRequest,
  UserList,
  UserUpdateRequest,
  UserView,
} from '../control/control.js';
import { errors, json, publicRoute } from './openapi-shared.js';

/** Control-plane routes: a session token as Bearer, then the role the action needs. */
const session: Array<Record<string, string[]>> = [{ sessionAuth: [] }];
export const idPath = (what: string) => ({
  path: z.object({ id: z.uuid().meta({ description: `The ${what}'s id` }) }),
});

export const op = (
  operationId: string,
  summary: string,
  ok: { status: '200' | '201' | '202' | '204'; schema?: z.ZodType; description: string },
  options: {
    body?: z.ZodType;
    params?: { path: z.ZodObject };
    query?: z.ZodObject;
    statuses?: number[];
  } = {},
): ZodOpenApiOperationObject => ({
  operationId,
  summary,
  tags: ['control'],
  security: session,
  ...(options.params || options.query
    ? { requestParams: { ...options.params, ...(options.query ? { query: options.query } : {}) } }
    : {}),
  ...(options.body ? { requestBody: { required: true, ...json(options.body) } } : {}),
  responses: {
    [ok.status]: ok.schema
      ? { description: ok.description, ...json(ok.schema) }
      : { description: ok.description },
    // 400 on every route: an X-Request-Id that cannot be kept is refused before any route runs.
    ...errors(400, 401, 403, 429, 500, 503, ...(options.body ? [413, 415] : []), ...(options.statuses ?? [])),
  },
});

export const controlPaths: ZodOpenApiPathsObject = {
  '/api/v1/control/sessions': {
    post: {
      operationId: 'login',
      summary: 'Log in with email and password; returns a session token (shown once)',
      tags: ['control'],
      security: publicRoute,
      requestBody: { required: true, ...json(LoginRequest) },
      responses: {
        '201': { description: 'Session opened', ...json(SessionCreated) },
        ...errors(400, 401, 413, 415, 429, 500, 503),
      },
    },
  },
  '/api/v1/control/sessions/current': {
    delete: op('logout', 'End this session; its token stops working at once', {
      status: '204',
      description: 'Logged out',
    }),
  },
  '/api/v1/control/account': {
    get: op('getAccount', 'The signed-in user, their tenant, role permissions and consent', {
      status: '200',
      schema: AccountView,
      description: 'Account',
    }),
  },
  '/api/v1/control/account/password': {
    post: op(
      'changePassword',
      "Change one's own password; other sessions end",
      { status: '204', description: 'Password changed' },
      { body: PasswordChangeRequest },
    ),
  },
  '/api/v1/control/users': {
    get: op('listUsers', "The tenant's users", { status: '200', schema: UserList, description: 'Users' }),
    post: op(
      'createUser',
      'Add a user with an initial password (owner, admin)',
      { status: '201', schema: UserView, description: 'User created' },
      { body: UserCreateRequest, statuses: [409] },
    ),
  },
  '/api/v1/control/users/{id}': {
    get: op(
      'getUser',
      'One user',
      { status: '200', schema: UserView, description: 'User' },
      {
        params: idPath('user'),
        statuses: [404],
      },
    ),
    patch: op(
      'updateUser',
      "Change a user's role or status (owner, admin); disabling ends their sessions and keys",
      { status: '200', schema: UserView, description: 'User changed' },
      { params: idPath('user'), body: UserUpdateRequest, statuses: [404] },
    ),
  },
  '/api/v1/control/api-keys': {
    get: op('listApiKeys', "The tenant's API keys, masked", {
      status: '200',
      schema: ApiKeyList,
      description: 'Keys',
    }),
    post: op(
      'createApiKey',
      'Create an API key; the full key is in this response only',
      { status: '201', schema: ApiKeyCreated, description: 'Key created' },
      { body: ApiKeyCreateRequest, statuses: [404] },
    ),
  },
  '/api/v1/control/api-keys/{id}': {
    get: op(
      'getApiKey',
      'One API key, masked',
      { status: '200', schema: ApiKeyView, description: 'Key' },
      {
        params: idPath('API key'),
        statuses: [404],
      },
    ),
    patch: op(
      'updateApiKey',
      'Rename a key or change its permissions (effective on every instance before this returns)',
      { status: '200', schema: ApiKeyView, description: 'Key changed' },
      { params: idPath('API key'), body: ApiKeyUpdateRequest, statuses: [404] },
    ),
  },
  '/api/v1/control/api-keys/{id}/revoke': {
    post: op(
      'revokeApiKey',
      'Revoke a key: it fails with 401 from the next request on every instance (idempotent)',
      { status: '200', schema: ApiKeyView, description: 'Key revoked' },
      { params: idPath('API key'), statuses: [404] },
    ),
  },
  '/api/v1/control/api-keys/{id}/rotate': {
    post: op(
      'rotateApiKey',
      'Replace a key: a new key with the same settings, the old one revoked',
      { status: '201', schema: ApiKeyCreated, description: 'Replacement key' },
      { params: idPath('API key'), statuses: [404, 409] },
    ),
  },
  '/api/v1/control/api-keys/{id}/storage-connection': {
    put: op(
      'attachStorageConnection',
      'Attach a storage connection to a key',
      { status: '200', schema: ApiKeyView, description: 'Attached' },
      { params: idPath('API key'), body: StorageAttachRequest, statuses: [404] },
    ),
    delete: op(
      'detachStorageConnection',
      'Detach the key from its storage connection (memory requests through it are then refused)',
      { status: '200', schema: ApiKeyView, description: 'Detached' },
      { params: idPath('API key'), statuses: [404] },
    ),
  },
  '/api/v1/control/storage-connections': {
    get: op('listStorageConnections', "The tenant's storage connections (secrets never shown)", {
      status: '200',
      schema: StorageConnectionList,
      description: 'Connections',
    }),
    post: op(
      'createStorageConnection',
      'Add a managed or a customer-owned (configurable only) storage connection',
      { status: '201', schema: StorageConnectionView, description: 'Connection created' },
      { body: StorageConnectionCreateRequest },
    ),
  },
  '/api/v1/control/storage-connections/{id}': {
    get: op(
      'getStorageConnection',
      'One storage connection',
      { status: '200', schema: StorageConnectionView, description: 'Connection' },
      { params: idPath('storage connection'), statuses: [404] },
    ),
    patch: op(
      'updateStorageConnection',
      'Rename, disable or enable, or replace settings and secret (write-only)',
      { status: '200', schema: StorageConnectionView, description: 'Connection changed' },
      { params: idPath('storage connection'), body: StorageConnectionUpdateRequest, statuses: [404] },
    ),
  },
  '/api/v1/control/consent': {
    get: op('getConsent', "The signed-in user's private-memory consent", {
      status: '200',
      schema: ConsentView,
      description: 'Consent',
    }),
  },
  '/api/v1/control/consent/grant': {
    post: op('grantConsent', 'Grant private-memory consent: later writes are retained', {
      status: '200',
      schema: ConsentView,
      description: 'Granted',
    }),
  },
  '/api/v1/control/consent/revoke': {
    post: op(
      'revokeConsent',
      'Revoke private-memory consent: later writes are not_retained; earlier data stays',
      { status: '200', schema: ConsentView, description: 'Revoked' },
    ),
  },
  '/api/v1/control/consent/events': {
    get: op('consentHistory', 'Audit trail of consent changes, newest first', {
      status: '200',
      schema: ConsentHistory,
      description: 'Consent history',
    }),
  },
  '/api/v1/control/operator-tokens': {
    get: op('listOperatorTokens', 'Operator tokens (owner)', {
      status: '200',
      schema: OperatorTokenList,
      description: 'Tokens',
    }),
    post: op(
      'createOperatorToken',
      'Issue an expiring operator token for privileged diagnostics (owner); shown once',
      { status: '201', schema: OperatorTokenCreated, description: 'Token issued' },
      { body: OperatorTokenCreateRequest },
    ),
  },
  '/api/v1/control/operator-tokens/{id}/revoke': {
    post: op(
      'revokeOperatorToken',
      'Revoke an operator token (idempotent)',
      { status: '200', schema: OperatorTokenView, description: 'Revoked' },
      { params: idPath('operator token'), statuses: [404] },
    ),
  },
  '/api/v1/control/usage': {
    get: op(
      'controlUsage',
      "The tenant's usage over a lookback window, from the billing ledger",
      { status: '200', schema: UsageResponse, description: 'Usage' },
      { query: UsageQuery, statuses: [504] },
    ),
  },
  '/api/v1/control/billing/charges': {
    get: op(
      'listCharges',
      'Charge records, newest first, filtered by state, operation and time, paged (billing:read)',
      { status: '200', schema: ChargeList, description: 'Charges' },
      { query: ChargeListQuery, statuses: [504] },
    ),
  },
  '/api/v1/control/billing/charges/{id}/void': {
    post: op(
      'voidCharge',
      'Void a recorded or unbilled charge, keeping its history (billing:void; idempotent)',
      { status: '200', schema: ChargeView, description: 'The void charge' },
      { params: idPath('charge'), body: VoidChargeRequest, statuses: [404, 409, 504] },
    ),
  },
  '/api/v1/control/billing/invoices': {
    get: op('listInvoices', 'Invoices, newest period first (billing:read)', {
      status: '200',
      schema: InvoiceList,
      description: 'Invoices',
    }),
    post: op(
      'closeInvoicePeriod',
      'Roll up a closed month: its recorded charges become invoiced (billing:invoice; idempotent per month)',
      { status: '200', schema: InvoiceView, description: 'The invoice of that month' },
      { body: InvoiceCreateRequest, statuses: [409, 504] },
    ),
  },
};
