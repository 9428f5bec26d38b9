/**
 * Moved to domain/identity/gateway-secrets.ts. Kept only because tests/e2e/control-sessions.test.ts
 * imports this path (outside the gateway); delete once it imports `deriveGatewaySecrets` from '@tm/gateway'.
 */
export { deriveGatewaySecrets, type GatewaySecrets } from './identity/gateway-secrets.js';
