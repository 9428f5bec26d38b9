import { env, jetstreamEnv, loadConfig } from '@tm/kit';
import { z } from 'zod';

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
   * after it (docs/decisions.md, "Idempotency retention"). Past it, the key is free again; the event
   * id still refuses a second copy of the same event.
   */
  IDEMPOTENCY_RETENTION_HOURS: env.positiveInt(24),
  /** How often expired idempotency entries are pruned. */
  IDEMPOTENCY_PRUNE_INTERVAL_MS: env.positiveInt(10 * 60_000),
});
export type MemoryConfig = z.output<typeof MemoryConfigSchema>;

export const loadMemoryConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(MemoryConfigSchema, source);
