import { z } from 'zod';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Read settings from the environment through a zod schema whose keys are the variable names.
 * Fails fast with one line per bad variable, naming the variable and never echoing its value
 * (a value may be a secret). A variable set to nothing (`FOO=` in a compose or env file) counts as
 * unset: coerced to a number it would read as 0, which turned on every rate anomaly at once.
 */
export function loadConfig<S extends z.ZodObject>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.output<S> {
  const given = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''),
  );
  const result = schema.safeParse(given);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}

/** Shared variable shapes, so every service spells and checks them alike. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65_535).default(fallback),
  positiveInt: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  natsUrl: () =>
    z
      .string()
      .default('nats://127.0.0.1:4222')
      .refine(
        (v) => v.split(',').every((u) => /^(nats|tls|wss?):\/\/[^\s]+$/.test(u.trim())),
        'must be nats://host:port',
      ),
  /**
   * A service's NATS password (its user is the service's name): required by a server that includes
   * infra/nats/service-permissions.conf, absent for the anonymous dev server (docs/security.md).
   */
  natsPassword: () =>
    z.string().min(16, 'must be at least 16 characters (e.g. openssl rand -base64 24)').optional(),
  databaseUrl: (database: string) =>
    z
      .string()
      .default(`postgresql://postgres@127.0.0.1:5432/${database}`)
      .refine(
        (v) => /^postgres(ql)?:\/\/[^\s]+\/[^\s/]+$/.test(v),
        'must be postgresql://user[:password]@host:port/database',
      ),
  /** Where a service's Prometheus metrics listen: its own port, apart from any public one (0: any free port). */
  metricsPort: (fallback: number) => z.coerce.number().int().min(0).max(65_535).default(fallback),
  metricsHost: () => z.string().min(1).default('127.0.0.1'),
  /**
   * How long a stopping process lets the work it holds finish (the gateway its HTTP requests, a service
   * its bus requests) before it answers or drops what is left and closes. Its default and the 5 s that
   * follow for closing the rest (runMain's deadline) fit inside the launcher's and compose's 15 s
   * before SIGKILL; a longer drain needs a longer stop_grace_period.
   */
  drainTimeoutMs: () =>
    z.coerce.number().int().min(0).max(60_000, 'must be at most 60000 (60 s)').default(5_000),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  text: (fallback: string) => z.string().min(1).default(fallback),
  /**
   * Copies JetStream keeps of each stream the services create: 1 on a single server, 3 on a
   * three-node cluster. JetStream allows 1 to 5; more than the cluster has servers fails the start.
   */
  jetstreamReplicas: () =>
    z.coerce
      .number()
      .int()
      .min(1, 'must be 1 to 5')
      .max(5, 'must be 1 to 5 (JetStream keeps at most 5 copies)')
      .default(1),
  /**
   * How long a stream keeps a message, whether or not it was consumed (docs/operations.md, "Streams").
   * At least an hour: JetStream refuses an age below the streams' 10-minute duplicate window.
   */
  jetstreamMaxAgeHours: () =>
    z.coerce
      .number()
      .int()
      .min(1, 'must be 1 to 8760 hours')
      .max(8_760, 'must be 1 to 8760 hours (a year)')
      .default(168),
  /** The most a stream holds, in MiB; past it the oldest messages go. */
  jetstreamMaxMbPerStream: () =>
    z.coerce
      .number()
      .int()
      .min(16, 'must be 16 to 1048576 MiB')
      .max(1_048_576, 'must be 16 to 1048576 MiB (1 TiB)')
      .default(1_024),
};

/**
 * The JetStream settings of every service that creates streams (memory, billing, telemetry, gateway):
 * one set of names, so a deployment gives them all the same values. Spread into a config schema.
 */
export const jetstreamEnv = {
  /** Copies JetStream keeps of each stream this service creates (1 to 5; 3 on a three-node cluster). */
  JETSTREAM_REPLICAS: env.jetstreamReplicas(),
  JETSTREAM_MAX_AGE_HOURS: env.jetstreamMaxAgeHours(),
  JETSTREAM_MAX_MB_PER_STREAM: env.jetstreamMaxMbPerStream(),
};
