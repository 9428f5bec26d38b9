import { env, jetstreamEnv, loadConfig } from '@tm/kit';
import { z } from 'zod';

/**
 * The longest MEMORY_DELETE_WAIT_MS: a second under the gateway's default 5 s upstream deadline. Up to
 * Until a review 30 s was allowed, and a DELETE waiting that long answered 504 at the gateway.
 */
export const MEMORY_DELETE_WAIT_MAX_MS = 4_000;

/**
 * The longest MEMORY_RECALL_MAX_WAIT_MS: a recall that waited this long still has 2 s to run and answer
 * inside the gateway's default 5 s deadline, so a refusal comes as a 429/503 rather than a late 504.
 */
export const MEMORY_RECALL_MAX_WAIT_MAX_MS = 3_000;

export const MemoryConfigSchema = z.object({
  MEMORY_DATABASE_URL: env.databaseUrl('tm_memory'),
  MEMORY_DB_POOL_SIZE: env.positiveInt(10),
  NATS_URL: env.natsUrl(),
  /** This service's NATS password (user `memory`) where the server gives each service its own subjects. */
  MEMORY_NATS_PASSWORD: env.natsPassword(),
  LOG_LEVEL: env.logLevel(),
  /** On SIGTERM, how long bus requests already taken may take to be answered before the pool closes. */
  DRAIN_TIMEOUT_MS: env.drainTimeoutMs(),
  /** Prometheus metrics (GET /metrics) on their own listener; docs/operations.md. */
  MEMORY_METRICS_PORT: env.metricsPort(9465),
  METRICS_HOST: env.metricsHost(),
  /** Copies, age and size limits of the JetStream streams this service creates (docs/operations.md). */
  ...jetstreamEnv,
  /** Sandbox price list version reported in usage blocks until billing owns prices. */
  PRICING_VERSION: env.text('sandbox-2026-11'),
  OUTBOX_RELAY_INTERVAL_MS: env.positiveInt(500),
  /**
   * How long an idempotency key replays its write: at least this long, until the next pruning pass
   * after it (docs/decisions/memory.md, "Idempotency retention"). Past it, the key is free again; the event
   * id still refuses a second copy of the same event.
   */
  IDEMPOTENCY_RETENTION_HOURS: env.positiveInt(24),
  /** How often expired idempotency entries are pruned. */
  IDEMPOTENCY_PRUNE_INTERVAL_MS: env.positiveInt(10 * 60_000),
  /**
   * Namespace deletion (docs/decisions/memory.md): records removed per committed batch (postings: 25
   * times as many). Smaller batches hold locks for less time; tests use a few to cross many batches.
   */
  MEMORY_DELETE_BATCH_SIZE: z.coerce.number().int().min(1).max(50_000).default(2_000),
  /**
   * How long a DELETE waits for its job before answering 202 with the receipt so far: inside the
   * gateway's deadline (GATEWAY_REQUEST_TIMEOUT_MS, 5 s by default), so the caller never sees a 504.
   * Capped below that default with room for the answer's way back; a gateway deadline set lower
   * needs this lower too (README.md, configuration).
   */
  MEMORY_DELETE_WAIT_MS: z.coerce.number().int().min(0).max(MEMORY_DELETE_WAIT_MAX_MS).default(2_000),
  /** How often the deletion worker looks for jobs left by a stopped instance (and new ones elsewhere). */
  MEMORY_DELETE_INTERVAL_MS: z.coerce.number().int().min(50).max(600_000).default(1_000),
  /** Completed deletions (their receipts) are kept this long for the status route, then pruned. */
  MEMORY_DELETE_RECEIPT_RETENTION_HOURS: env.positiveInt(24 * 7),
  /**
   * Re-index of namespaces written before recall matched on stems (docs/operations.md, "Re-index"):
   * records indexed per committed batch (old postings removed per batch: 25 times as many). Each
   * batch holds its records' KEY SHARE locks, and a forget of one of them waits, until it commits.
   */
  REINDEX_BATCH_SIZE: z.coerce.number().int().min(1).max(50_000).default(500),
  /**
   * Recall admission per instance (docs/decisions/fairness.md, "Recalls admitted per tenant"): slots one
   * tenant's recalls take at once (a heavy recall takes two: recall-admission.ts), how many more of
   * its recalls may wait (one more is a 429), slots of all tenants at once (under MEMORY_DB_POOL_SIZE,
   * leaving writes connections), and recalls of all waiting (one more is a 503). A waiting recall is
   * refused past MEMORY_RECALL_MAX_WAIT_MS.
   */
  MEMORY_RECALL_TENANT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  MEMORY_RECALL_TENANT_QUEUE: z.coerce.number().int().min(0).max(1_000).default(64),
  MEMORY_RECALL_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  MEMORY_RECALL_QUEUE: z.coerce.number().int().min(0).max(10_000).default(256),
  MEMORY_RECALL_MAX_WAIT_MS: z.coerce.number().int().min(0).max(MEMORY_RECALL_MAX_WAIT_MAX_MS).default(2_000),
  /** How often the re-index worker looks for namespaces with work left while it has none. */
  REINDEX_POLL_MS: z.coerce.number().int().min(50).max(600_000).default(5_000),
});
export type MemoryConfig = z.output<typeof MemoryConfigSchema>;

export const loadMemoryConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(MemoryConfigSchema, source);
