/**
 * Every route the gateway serves, as the OpenAPI document names its path, with the operation its
 * request records carry. Records keep these templates only, never a path a caller typed: before
 * a path with an unknown id in it was recorded as typed, so any signed-in user could add
 * distinct operation keys to the rollups without bound. A path no entry matches is `(unmatched)`.
 *
 * Operation names: `<area>.<resource>.<action>` in snake_case (`control.api_keys.rotate`);
 * the data plane keeps the spec's `memory.write`, `memory.recall`, `memory.delete`.
 */
const ROUTES: ReadonlyArray<readonly [method: string, template: string, operation: string]> = [
  ['POST', '/api/v1/memory/write', 'memory.write'],
  ['POST', '/api/v1/memory/write/batch', 'memory.write_batch'],
  ['POST', '/api/v1/memory/recall', 'memory.recall'],
  ['DELETE', '/api/v1/memory', 'memory.delete'],
  ['GET', '/api/v1/memory/deletions/{deletion_id}', 'memory.delete.status'],
  ['POST', '/api/v1/memory/restore', 'memory.restore'],
  ['GET', '/api/v1/memory/restore/{restore_id}', 'memory.restore.status'],
  ['GET', '/api/v1/memory/restore/{restore_id}/failures', 'memory.restore.failures'],

  ['POST', '/api/v1/control/sessions', 'control.sessions.create'],
  ['DELETE', '/api/v1/control/sessions/current', 'control.sessions.delete'],
  ['GET', '/api/v1/control/account', 'control.account.get'],
  ['POST', '/api/v1/control/account/password', 'control.account.change_password'],
  ['GET', '/api/v1/control/users', 'control.users.list'],
  ['POST', '/api/v1/control/users', 'control.users.create'],
  ['GET', '/api/v1/control/users/{id}', 'control.users.get'],
  ['PATCH', '/api/v1/control/users/{id}', 'control.users.update'],
  ['GET', '/api/v1/control/api-keys', 'control.api_keys.list'],
  ['POST', '/api/v1/control/api-keys', 'control.api_keys.create'],
  ['GET', '/api/v1/control/api-keys/{id}', 'control.api_keys.get'],
  ['PATCH', '/api/v1/control/api-keys/{id}', 'control.api_keys.update'],
  ['POST', '/api/v1/control/api-keys/{id}/revoke', 'control.api_keys.revoke'],
  ['POST', '/api/v1/control/api-keys/{id}/rotate', 'control.api_keys.rotate'],
  ['PUT', '/api/v1/control/api-keys/{id}/storage-connection', 'control.api_keys.attach_storage'],
  ['DELETE', '/api/v1/control/api-keys/{id}/storage-connection', 'control.api_keys.detach_storage'],
  ['GET', '/api/v1/control/storage-connections', 'control.storage_connections.list'],
  ['POST', '/api/v1/control/storage-connections', 'control.storage_connections.create'],
  ['GET', '/api/v1/control/storage-connections/{id}', 'control.storage_connections.get'],
  ['PATCH', '/api/v1/control/storage-connections/{id}', 'control.storage_connections.update'],
  ['GET', '/api/v1/control/consent', 'control.consent.get'],
  ['POST', '/api/v1/control/consent/grant', 'control.consent.grant'],
  ['POST', '/api/v1/control/consent/revoke', 'control.consent.revoke'],
  ['GET', '/api/v1/control/consent/events', 'control.consent.events'],
  ['GET', '/api/v1/control/operator-tokens', 'control.operator_tokens.list'],
  ['POST', '/api/v1/control/operator-tokens', 'control.operator_tokens.create'],
  ['POST', '/api/v1/control/operator-tokens/{id}/revoke', 'control.operator_tokens.revoke'],
  ['GET', '/api/v1/control/usage', 'control.usage.get'],
  ['GET', '/api/v1/control/billing/charges', 'control.billing.charges.list'],
  ['POST', '/api/v1/control/billing/charges/{id}/void', 'control.billing.charges.void'],
  ['GET', '/api/v1/control/billing/invoices', 'control.billing.invoices.list'],
  ['POST', '/api/v1/control/billing/invoices', 'control.billing.invoices.close'],
  ['GET', '/api/v1/control/webhook-endpoints', 'control.webhook_endpoints.list'],
  ['POST', '/api/v1/control/webhook-endpoints', 'control.webhook_endpoints.create'],
  ['GET', '/api/v1/control/webhook-endpoints/{id}', 'control.webhook_endpoints.get'],
  ['PATCH', '/api/v1/control/webhook-endpoints/{id}', 'control.webhook_endpoints.update'],
  ['DELETE', '/api/v1/control/webhook-endpoints/{id}', 'control.webhook_endpoints.delete'],
  ['POST', '/api/v1/control/webhook-endpoints/{id}/rotate-secret', 'control.webhook_endpoints.rotate_secret'],
  ['GET', '/api/v1/control/webhook-endpoints/{id}/deliveries', 'control.webhook_endpoints.deliveries.list'],
  [
    'POST',
    '/api/v1/control/webhook-endpoints/{id}/deliveries/{delivery_id}/redeliver',
    'control.webhook_endpoints.deliveries.redeliver',
  ],

  ['GET', '/api/v1/infrastructure/health', 'infrastructure.health'],
  ['GET', '/api/v1/infrastructure/capabilities', 'infrastructure.capabilities'],
  ['GET', '/api/v1/infrastructure/release', 'infrastructure.release'],
  ['GET', '/api/v1/infrastructure/status', 'infrastructure.status'],
  ['GET', '/api/v1/infrastructure/usage', 'infrastructure.usage'],
  ['GET', '/api/v1/infrastructure/events', 'infrastructure.events'],
  ['GET', '/api/v1/infrastructure/namespaces', 'infrastructure.namespaces'],
  ['GET', '/api/v1/infrastructure/metrics', 'infrastructure.metrics'],
  ['GET', '/api/v1/infrastructure/anomalies', 'infrastructure.anomalies'],
  ['GET', '/api/v1/infrastructure/export', 'infrastructure.export'],
  ['POST', '/api/v1/infrastructure/smoke-test', 'infrastructure.smoke_test'],
  ['GET', '/api/v1/openapi.json', 'openapi.document'],
  // The browsable reference (swagger-ui-express): its page and its files, outside the document.
  ['GET', '/api/v1/docs', 'openapi.docs'],
  ['GET', '/api/v1/docs/{asset}', 'openapi.docs'],

  ['GET', '/v1/templates', 'template.list'],
  ['POST', '/v1/templates', 'template.create'],
  ['GET', '/v1/templates/{template_name_or_id}', 'template.get'],
  ['PUT', '/v1/templates/{template_name_or_id}', 'template.update'],
  ['GET', '/v1/marketplace/templates', 'marketplace.search'],
  ['GET', '/v1/marketplace/templates/{marketplace_template_id}', 'marketplace.get'],
  ['POST', '/v1/memories', 'template.memory.create'],
  ['GET', '/v1/memories/{memory_id}', 'memory.get'],
  ['DELETE', '/v1/memories/{memory_id}', 'memory.forget'],
  ['POST', '/v1/imports', 'import.create'],
  ['GET', '/v1/imports/{import_id}', 'import.get'],
  ['POST', '/v1/imports/{import_id}/start', 'import.start'],
  ['GET', '/v1/imports/{import_id}/failures', 'import.failures'],
  ['POST', '/v1/chat/completions', 'chat.completion'],
  // The remote MCP endpoint, outside the document (a JSON-RPC protocol): only its refusals are recorded.
  ['POST', '/mcp', 'mcp.message'],
  ['GET', '/v1/models', 'chat.models.list'],
  ['GET', '/v1/models/{model}', 'chat.models.get'],
];

/** The routes as `METHOD template`, for the test that holds them to the OpenAPI document. */
export const ROUTE_KEYS: readonly string[] = ROUTES.map(([method, template]) => `${method} ${template}`);

export interface RouteOperation {
  route: string;
  operation: string;
}

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Literal segments first, so `/v1/imports/estimate` would win over `/v1/imports/{import_id}`. */
const MATCHERS = ROUTES.map(([method, template, operation]) => {
  const segments = template.split('/');
  const pattern = segments.map((s) => (/^\{\w+\}$/.test(s) ? '[^/]+' : literal(s))).join('/');
  return {
    method,
    // Express matches paths case-insensitively and with or without a trailing slash.
    regex: new RegExp(`^${pattern}/?$`, 'i'),
    literals: segments.filter((s) => s && !s.startsWith('{')).length,
    found: { route: template, operation },
  };
}).sort((a, b) => b.literals - a.literals);

/** The route a request reached, by its method (HEAD is served as GET) and path; undefined for none. */
export function routeOperationOf(method: string, path: string): RouteOperation | undefined {
  const asked = method === 'HEAD' ? 'GET' : method;
  return MATCHERS.find((m) => m.method === asked && m.regex.test(path))?.found;
}
