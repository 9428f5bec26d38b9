import { env, loadConfig } from '@tm/kit';
import { z } from 'zod';

export const MemoryConfigSchema = z.object({
  MEMORY_DATABASE_URL: env.databaseUrl('tm_memory'),
  MEMORY_DB_POOL_SIZE: env.positiveInt(10),
  NATS_URL: env.natsUrl(),
  LOG_LEVEL: env.logLevel(),
  /** Sandbox price list version reported in usage blocks until billing owns prices. */
  PRICING_VERSION: env.text('sandbox-2026-11'),
  OUTBOX_RELAY_INTERVAL_MS: env.positiveInt(500),
});
export type MemoryConfig = z.output<typeof MemoryConfigSchema>;

export const loadMemoryConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(MemoryConfigSchema, source);
