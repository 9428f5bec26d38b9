export { type Gateway, startGateway } from './app.js';
export { type GatewayConfig, GatewayConfigSchema, loadGatewayConfig } from './config.js';
export { bootstrapTenant } from './domain/control/bootstrap-tenant.js';
export { revokeApiKey } from './domain/control/revoke-api-key.js';
export { deriveGatewaySecrets } from './domain/identity/gateway-secrets.js';
