import { env, loadConfig } from '@tm/kit';
import { z } from 'zod';

export const GatewayConfigSchema = z.object({
  GATEWAY_PORT: env.port(8080),
  GATEWAY_HOST: env.text('0.0.0.0'),
  GATEWAY_DATABASE_URL: env.databaseUrl('tm_gateway'),
  GATEWAY_DB_POOL_SIZE: env.positiveInt(10),
  NATS_URL: env.natsUrl(),
  LOG_LEVEL: env.logLevel(),
  /** Deadline for one call to a downstream service; past it the caller gets a retryable 504. */
  GATEWAY_REQUEST_TIMEOUT_MS: env.positiveInt(5_000),
  /** How long an open breaker refuses calls before trying the service again. */
  BREAKER_RESET_MS: env.positiveInt(5_000),
  /** Verified API keys kept per instance; changes reach every instance by broadcast, not by expiry. */
  KEY_CACHE_SIZE: env.positiveInt(10_000),
  /** Upper bound on how long a change made straight in the database (not broadcast) goes unseen. */
  KEY_CACHE_TTL_MS: env.positiveInt(60_000),
  DEPLOYMENT_VERSION: env.text('dev'),
  DEPLOYMENT_ENVIRONMENT: env.text('development'),
});
export type GatewayConfig = z.output<typeof GatewayConfigSchema>;

export const loadGatewayConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(GatewayConfigSchema, source);
