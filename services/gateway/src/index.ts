export { type Gateway, startGateway } from './app.js';
export { type GatewayConfig, GatewayConfigSchema, loadGatewayConfig } from './config.js';
export { bootstrapTenant } from './domain/bootstrap-tenant.js';
export { revokeApiKey } from './domain/revoke-api-key.js';
