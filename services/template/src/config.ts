import { env, loadConfig } from '@tm/kit';
import { z } from 'zod';

export const TemplateConfigSchema = z.object({
  TEMPLATE_DATABASE_URL: env.databaseUrl('tm_template'),
  TEMPLATE_DB_POOL_SIZE: env.positiveInt(5),
  NATS_URL: env.natsUrl(),
  LOG_LEVEL: env.logLevel(),
  /**
   * How long a memory creation waits for memory.v1.write. Below the gateway's own deadline (3 s by
   * default), so the gateway hears a typed 504 from here rather than timing out itself.
   */
  MEMORY_WRITE_TIMEOUT_MS: env.positiveInt(2_500),
  /**
   * The price list an import's estimate quotes, and its memory.write unit price in micro-USD. Billing
   * has no price lookup on the bus, so these mirror its published sandbox price (100 micro-USD).
   */
  PRICING_VERSION: env.text('sandbox-2026-11'),
  IMPORT_WRITE_UNIT_PRICE_MICRO_USD: env.positiveInt(100),
  /** Import worker: how often it looks for started jobs, rows per batch, writes in flight. */
  IMPORT_POLL_MS: env.positiveInt(1_000),
  IMPORT_BATCH_SIZE: env.positiveInt(200),
  IMPORT_CONCURRENCY: env.positiveInt(16),
});
export type TemplateConfig = z.output<typeof TemplateConfigSchema>;

export const loadTemplateConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(TemplateConfigSchema, source);
