import { env, jetstreamEnv, loadConfig } from '@tm/kit';
import { z } from 'zod';

const ratio = (fallback: number) => z.coerce.number().min(0).max(1).default(fallback);
const amount = (fallback: number) => z.coerce.number().min(0).default(fallback);

/** An anomaly's two thresholds; critical must not be below warning. */
const pairIsOrdered = (c: Record<string, number>, name: string) =>
  (c[`ANOMALY_${name}_WARNING`] ?? 0) <= (c[`ANOMALY_${name}_CRITICAL`] ?? 0);
const PAIRS = [
  'ERROR_RATE',
  'P95_LATENCY_MS',
  'BLOCKED_RATE',
  'DEAD_LETTERS',
  'DROPPED_RECORDS',
  'RECORD_DEAD_LETTERS',
];

export const TelemetryConfigSchema = z
  .object({
    TELEMETRY_DATABASE_URL: env.databaseUrl('tm_telemetry'),
    TELEMETRY_DB_POOL_SIZE: env.positiveInt(5),
    NATS_URL: env.natsUrl(),
    /** This service's NATS password (user `telemetry`) where the server gives each service its own subjects. */
    TELEMETRY_NATS_PASSWORD: env.natsPassword(),
    LOG_LEVEL: env.logLevel(),
    /** On SIGTERM, how long bus requests already taken may take to be answered before the pool closes. */
    DRAIN_TIMEOUT_MS: env.drainTimeoutMs(),
    /** Prometheus metrics (GET /metrics) on their own listener; docs/operations.md. */
    TELEMETRY_METRICS_PORT: env.metricsPort(9467),
    METRICS_HOST: env.metricsHost(),
    /** Copies, age and size limits of the JetStream streams this service creates (docs/operations.md). */
    ...jetstreamEnv,
    /** JetStream messages (each a batch of records from one gateway) taken per transaction. */
    RECORD_BATCH_SIZE: env.positiveInt(50),
    /**
     * Metrics and anomalies compute exact percentiles from the records while a window holds at most
     * this many requests; above, from the per-minute latency histogram (within 1 %).
     */
    TELEMETRY_EXACT_PERCENTILES_UP_TO: z.coerce.number().int().min(0).default(10_000),
    /** Records older than this are pruned (hourly). */
    TELEMETRY_RETENTION_DAYS: env.positiveInt(30),
    // Anomaly thresholds, per deployment. Rates are fractions of the window's requests.
    ANOMALY_ERROR_RATE_WARNING: ratio(0.05),
    ANOMALY_ERROR_RATE_CRITICAL: ratio(0.25),
    ANOMALY_P95_LATENCY_MS_WARNING: amount(1_000),
    ANOMALY_P95_LATENCY_MS_CRITICAL: amount(5_000),
    ANOMALY_BLOCKED_RATE_WARNING: ratio(0.25),
    ANOMALY_BLOCKED_RATE_CRITICAL: ratio(0.5),
    ANOMALY_DEAD_LETTERS_WARNING: amount(1),
    ANOMALY_DEAD_LETTERS_CRITICAL: amount(25),
    ANOMALY_DROPPED_RECORDS_WARNING: amount(1),
    ANOMALY_DROPPED_RECORDS_CRITICAL: amount(1_000),
    // Request records this service could not store (dead-lettered alone, their batch stored): each is
    // a request missing from its tenant's history, and a gateway making records it should not.
    ANOMALY_RECORD_DEAD_LETTERS_WARNING: amount(1),
    ANOMALY_RECORD_DEAD_LETTERS_CRITICAL: amount(100),
    /** Rates and p95 are judged only over at least this many requests: two failures of three are noise. */
    ANOMALY_MIN_REQUESTS: env.positiveInt(10),
    /**
     * The anomaly watch: how often it judges each active tenant's last ANOMALY_WATCH_WINDOW_MINUTES
     * (status's window) and raises what is new (anomaly.raised webhooks). One pass at a time in the deployment.
     */
    ANOMALY_WATCH_INTERVAL_MS: env.positiveInt(60_000),
    ANOMALY_WATCH_WINDOW_MINUTES: z.coerce.number().int().min(1).max(1_440).default(15),
    /**
     * How often the event outbox (anomaly.raised) is polled for rows a pass's nudge did not publish
     * (a bus that refused them, a process stopped between commit and publish).
     */
    OUTBOX_RELAY_INTERVAL_MS: env.positiveInt(1_000),
  })
  .superRefine((c, ctx) => {
    for (const name of PAIRS) {
      if (!pairIsOrdered(c as unknown as Record<string, number>, name)) {
        ctx.addIssue({
          code: 'custom',
          path: [`ANOMALY_${name}_CRITICAL`],
          message: `must be at least ANOMALY_${name}_WARNING`,
        });
      }
    }
  });
export type TelemetryConfig = z.output<typeof TelemetryConfigSchema>;

export const loadTelemetryConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(TelemetryConfigSchema, source);
