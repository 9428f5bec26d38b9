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
});
export type TemplateConfig = z.output<typeof TemplateConfigSchema>;

export const loadTemplateConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(TemplateConfigSchema, source);
