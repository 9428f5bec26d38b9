import { env, jetstreamEnv, loadConfig } from '@tm/kit';
import { z } from 'zod';

export const BillingConfigSchema = z.object({
  BILLING_DATABASE_URL: env.databaseUrl('tm_billing'),
  BILLING_DB_POOL_SIZE: env.positiveInt(5),
  NATS_URL: env.natsUrl(),
  /** This service's NATS password (user `billing`) where the server gives each service its own subjects. */
  BILLING_NATS_PASSWORD: env.natsPassword(),
  LOG_LEVEL: env.logLevel(),
  /** On SIGTERM, how long bus requests already taken may take to be answered before the pool closes. */
  DRAIN_TIMEOUT_MS: env.drainTimeoutMs(),
  /** Prometheus metrics (GET /metrics) on their own listener; docs/operations.md. */
  BILLING_METRICS_PORT: env.metricsPort(9466),
  METRICS_HOST: env.metricsHost(),
  /** Copies, age and size limits of the JetStream streams this service creates (docs/operations.md). */
  ...jetstreamEnv,
  /**
   * How often the event outbox (charge.voided) is polled for rows a commit's nudge did not publish
   * (a bus that refused them, a process stopped between commit and publish).
   */
  OUTBOX_RELAY_INTERVAL_MS: env.positiveInt(1_000),
  /** Usage records taken from the stream per ledger transaction. */
  USAGE_BATCH_SIZE: env.positiveInt(200),
  /** The price list reported as "in force" (usage records carry their own version). */
  PRICING_VERSION: env.text('sandbox-2026-11'),
});
export type BillingConfig = z.output<typeof BillingConfigSchema>;

export const loadBillingConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(BillingConfigSchema, source);
