import { env, jetstreamEnv, loadConfig } from '@tm/kit';
import { z } from 'zod';

/** An http(s) base URL without a trailing slash (paths are appended to it). */
const hubUrl = (fallback: string) =>
  z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .default(fallback)
    .transform((v) => v.replace(/\/+$/, ''));

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
  /** Copies, age and size limits of the JetStream stream this service creates (TEMPLATE_EVENTS). */
  ...jetstreamEnv,
  /**
   * How often the event outbox (import.completed / import.failed) is polled for rows a job's
   * nudge did not publish (a bus that refused them, a process stopped between commit and publish).
   */
  OUTBOX_RELAY_INTERVAL_MS: env.positiveInt(1_000),
  /**
   * How long a memory creation waits for memory.v1.write. Below the gateway's own deadline (3 s by
   * default), so the gateway hears a typed 504 from here rather than timing out itself.
   */
  MEMORY_WRITE_TIMEOUT_MS: env.positiveInt(2_500),
  /** How long an open breaker refuses memory writes before one probes the service again (the gateway's too). */
  BREAKER_RESET_MS: env.positiveInt(5_000),
  /**
   * How long an import estimate waits for billing's price list (billing.v1.prices.get): one indexed
   * read there, well inside the seal's own deadline. No answer in time is a retryable 503.
   */
  BILLING_PRICE_TIMEOUT_MS: env.positiveInt(1_000),
  /**
   * A namespace deletion's template part: rows per committed batch (template memories, memory
   * requests, an import's rows or chunks), so no statement's cost grows with the namespace and a retry
   * goes on from the last batch; and how long the asking request waits for the whole before a retryable
   * 503 (the deletion goes on meanwhile). The wait stays below the gateway's 5 s deadline less the memory
   * service's own 2 s wait, so the gateway hears an answer, not a timeout.
   */
  TEMPLATE_DELETE_BATCH_SIZE: z.coerce.number().int().min(1).max(50_000).default(1_000),
  TEMPLATE_DELETE_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
  /** Import worker: how often it looks for started jobs, rows per batch, writes in flight. */
  IMPORT_POLL_MS: env.positiveInt(1_000),
  IMPORT_BATCH_SIZE: env.positiveInt(200),
  IMPORT_CONCURRENCY: env.positiveInt(16),
  /**
   * What one upload may hold once read (docs/decisions/templates-and-imports.md): an XLSX's parts unzipped, one
   * cell's characters, data rows. Past any of them the upload is 413 payload_too_large.
   */
  IMPORT_MAX_UNCOMPRESSED_BYTES: env.positiveInt(128 * 1024 * 1024),
  IMPORT_MAX_CELL_CHARS: env.positiveInt(1_000_000),
  IMPORT_MAX_ROWS: env.positiveInt(100_000),
  /**
   * Imports a tenant may have in flight across instances, uploads (received or being read) and dataset
   * imports (resolved at or read from the hub) counted apart: more is 429 (domain/imports/in-flight-imports.ts).
   */
  IMPORT_MAX_CONCURRENT_PER_TENANT: env.positiveInt(2),
  /**
   * An estimated import not started within this expires (state `expired`): its sealed hub token and
   * stored rows go. A day: time to read an estimate and decide, not to keep a credential for ever.
   */
  IMPORT_UNSTARTED_TTL_MS: env.positiveInt(24 * 60 * 60_000),
  /** How often unstarted imports past their time are expired. */
  IMPORT_EXPIRY_SWEEP_MS: env.positiveInt(60_000),
  /** Uploads this instance reads at once; reading is CPU- and memory-bound, so about one per core. */
  IMPORT_MAX_CONCURRENT_READS: env.positiveInt(2),
  /**
   * Model-hub dataset imports (docs/decisions/templates-and-imports.md "Hub datasets"): the hub's own API (dataset
   * metadata: commit sha, gated, files) and its dataset viewer (splits, info, row pages) are two bases,
   * as on huggingface.co. Each call has HUB_TIMEOUT_MS; 429 and 5xx (but 501) are retried HUB_RETRIES
   * times with backoff from HUB_RETRY_BASE_MS, honouring Retry-After.
   */
  HUB_BASE_URL: hubUrl('https://huggingface.co'),
  HUB_DATASETS_SERVER_URL: hubUrl('https://datasets-server.huggingface.co'),
  HUB_TIMEOUT_MS: env.positiveInt(10_000),
  HUB_RETRIES: z.coerce.number().int().min(0).max(10).default(3),
  HUB_RETRY_BASE_MS: env.positiveInt(250),
  /** All of one import's metadata calls to the hub, retries included; below the gateway's 60 s. */
  HUB_PROBE_BUDGET_MS: env.positiveInt(30_000),
  /** Rows per page asked of the viewer's /rows; it serves at most 100. */
  HUB_PAGE_ROWS: z.coerce.number().int().min(1).max(100).default(100),
  /**
   * Seals a caller's hub token at rest while its import runs (AES-256-GCM). Unset: a per-process key,
   * so a job that needs its token cannot go on after a restart (it fails with dataset_gated).
   */
  IMPORT_SECRET_KEY: z
    .string()
    .min(32, 'IMPORT_SECRET_KEY must be at least 32 characters (e.g. openssl rand -base64 48)')
    .optional(),
});
export type TemplateConfig = z.output<typeof TemplateConfigSchema>;

export const loadTemplateConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(TemplateConfigSchema, source);
