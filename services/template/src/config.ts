import { env, loadConfig } from '@tm/kit';
import { z } from 'zod';

export const TemplateConfigSchema = z.object({
  TEMPLATE_DATABASE_URL: env.databaseUrl('tm_template'),
  TEMPLATE_DB_POOL_SIZE: env.positiveInt(5),
  NATS_URL: env.natsUrl(),
  /** This service's NATS password (user `template`) where the server gives each service its own subjects. */
  TEMPLATE_NATS_PASSWORD: env.natsPassword(),
  LOG_LEVEL: env.logLevel(),
  /** On SIGTERM, how long bus requests already taken may take to be answered before the pool closes. */
  DRAIN_TIMEOUT_MS: env.drainTimeoutMs(),
  /** Prometheus metrics (GET /metrics) on their own listener; docs/operations.md. */
  TEMPLATE_METRICS_PORT: env.metricsPort(9468),
  METRICS_HOST: env.metricsHost(),
  /**
   * How long a memory creation waits for memory.v1.write. Below the gateway's own deadline (3 s by
   * default), so the gateway hears a typed 504 from here rather than timing out itself.
   */
  MEMORY_WRITE_TIMEOUT_MS: env.positiveInt(2_500),
  /**
   * How long an import estimate waits for billing's price list (billing.v1.prices.get): one indexed
   * read there, well inside the seal's own deadline. No answer in time is a retryable 503.
   */
  BILLING_PRICE_TIMEOUT_MS: env.positiveInt(1_000),
  /** Import worker: how often it looks for started jobs, rows per batch, writes in flight. */
  IMPORT_POLL_MS: env.positiveInt(1_000),
  IMPORT_BATCH_SIZE: env.positiveInt(200),
  IMPORT_CONCURRENCY: env.positiveInt(16),
  /**
   * What one upload may hold once read (docs/decisions-p7-uploads.md): an XLSX's parts unzipped, one
   * cell's characters, data rows. Past any of them the upload is 413 payload_too_large.
   */
  IMPORT_MAX_UNCOMPRESSED_BYTES: env.positiveInt(128 * 1024 * 1024),
  IMPORT_MAX_CELL_CHARS: env.positiveInt(1_000_000),
  IMPORT_MAX_ROWS: env.positiveInt(100_000),
  /** Uploads a tenant may have in flight (received or being read), across instances: more is 429. */
  IMPORT_MAX_CONCURRENT_PER_TENANT: env.positiveInt(2),
  /** Uploads this instance reads at once; reading is CPU- and memory-bound, so about one per core. */
  IMPORT_MAX_CONCURRENT_READS: env.positiveInt(2),
});
export type TemplateConfig = z.output<typeof TemplateConfigSchema>;

export const loadTemplateConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(TemplateConfigSchema, source);
