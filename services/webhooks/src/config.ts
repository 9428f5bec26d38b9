import { env, jetstreamEnv, loadConfig } from '@tm/kit';
import { z } from 'zod';

/** The Standard Webhooks retry schedule after the first attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const STANDARD_RETRY_SCHEDULE_MS = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];

const DAY_MS = 86_400_000;

const flag = () =>
  z
    .enum(['true', 'false'], { message: 'must be true or false' })
    .default('false')
    .transform((v) => v === 'true');

export const WebhooksConfigSchema = z.object({
  WEBHOOKS_DATABASE_URL: env.databaseUrl('tm_webhooks'),
  WEBHOOKS_DB_POOL_SIZE: env.positiveInt(5),
  NATS_URL: env.natsUrl(),
  /** This service's NATS password (user `webhooks`) where the server gives each service its own subjects. */
  WEBHOOKS_NATS_PASSWORD: env.natsPassword(),
  LOG_LEVEL: env.logLevel(),
  DRAIN_TIMEOUT_MS: env.drainTimeoutMs(),
  /** Prometheus metrics (GET /metrics) on their own listener; docs/operations.md. */
  WEBHOOKS_METRICS_PORT: env.metricsPort(9469),
  METRICS_HOST: env.metricsHost(),
  ...jetstreamEnv,
  /** Seals the endpoints' signing secrets at rest (AES-256-GCM); the same for every instance, kept across releases. */
  WEBHOOKS_SECRET_KEY: z
    .string({ message: 'WEBHOOKS_SECRET_KEY is required (e.g. openssl rand -base64 48)' })
    .min(32, 'WEBHOOKS_SECRET_KEY must be at least 32 characters (e.g. openssl rand -base64 48)'),
  /** Let deliveries reach loopback addresses (tests and the dev launcher); every other private range stays refused. */
  WEBHOOKS_ALLOW_LOOPBACK: flag(),
  /** Delays before each retry, in ms, comma-separated; the default is the Standard Webhooks schedule. */
  WEBHOOKS_RETRY_SCHEDULE_MS: z
    .string()
    .default(STANDARD_RETRY_SCHEDULE_MS.join(','))
    .transform((v) => v.split(',').map((part) => Number(part.trim())))
    .refine(
      (delays) => delays.every((d) => Number.isInteger(d) && d >= 0 && d <= DAY_MS),
      'must be whole milliseconds from 0 to 86400000, comma-separated',
    )
    .refine((delays) => delays.length <= 20, 'must list at most 20 retries'),
  /** One attempt, from connecting to the end of the answer. */
  WEBHOOKS_ATTEMPT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(30_000, 'must be at most 30000 (30 s)')
    .default(10_000),
  /** How often each instance looks for due deliveries (a new event also wakes it). */
  WEBHOOKS_POLL_INTERVAL_MS: env.positiveInt(1_000),
  /**
   * Deliveries one instance sends at once (its send slots). A slot is one outbound socket, cheap; with
   * 16 slots and 4 an endpoint, one tenant's endpoint answering in 100 ms took 40 deliveries a second,
   * below a busy tenant's write rate (the fairness suite's B writes about 70 a second).
   */
  WEBHOOKS_CONCURRENCY: env.positiveInt(64),
  /**
   * The most send slots one tenant holds on an instance, even with nothing else due: below
   * WEBHOOKS_CONCURRENCY, so a tenant whose receiver hangs leaves slots free for the next tenant's
   * event rather than making it wait out a time-out. With others due, each gets an even share.
   */
  WEBHOOKS_TENANT_CONCURRENCY: env.positiveInt(16),
  /** The most deliveries in flight to one endpoint from one instance. */
  WEBHOOKS_ENDPOINT_CONCURRENCY: env.positiveInt(16),
  /** How long an endpoint that stopped answering (time-outs, refused connections) is left alone before one probe. */
  WEBHOOKS_BREAKER_RESET_MS: z.coerce
    .number({ message: 'must be whole milliseconds' })
    .int('must be whole milliseconds')
    .min(1_000, 'must be at least 1000 (1 s)')
    .max(3_600_000, 'must be at most 3600000 (1 h)')
    .default(60_000),
  /** Attempts to an endpoint in a minute before half of them unanswered back it off. */
  WEBHOOKS_BREAKER_VOLUME: env.positiveInt(4),
  /** Endpoints a tenant may register. */
  WEBHOOKS_MAX_ENDPOINTS: env.positiveInt(20),
  /** Usage records taken from the stream per fan-out transaction. */
  WEBHOOKS_FETCH_BATCH_SIZE: env.positiveInt(200),
  /** Finished (succeeded or failed) deliveries and their attempts stay in the log this long, then are pruned hourly. */
  WEBHOOKS_DELIVERY_RETENTION_DAYS: z.coerce
    .number({ message: 'must be a whole number of days' })
    .int('must be a whole number of days')
    .min(1, 'must be at least 1 day')
    .max(3_650, 'must be at most 3650 days (10 years)')
    .default(30),
});
export type WebhooksConfig = z.output<typeof WebhooksConfigSchema>;

export const loadWebhooksConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(WebhooksConfigSchema, source);
