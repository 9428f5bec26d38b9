import type { DependencyHealth, ServiceSelfReport } from '@tm/contracts';
import type { ConsumerLag } from '../jetstream/consumer-lag.js';

/** Past this a consumer's lag counts as unreadable: the gateway waits 1 s for the whole report. */
const CONSUMER_READ_TIMEOUT_MS = 500;

export interface HealthChecks {
  /** The service's database (`pingDatabase` of its prisma-client.ts), bounded by its own timeout. */
  database: () => Promise<DependencyHealth>;
  /** Its durable JetStream consumers, if any (what `runDurableConsumer` returns). */
  consumers?: ReadonlyArray<{ durable: string; lag: () => Promise<ConsumerLag> }>;
  /**
   * Its database's latest applied migration (`schemaVersion` of its prisma-client.ts), for release
   * records: what is known now, synchronous, so the report never waits on a database read.
   */
  schemaVersion?: () => string | null;
}

const within = <T>(promise: Promise<T>, ms: number) => {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer in time')), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
};

async function consumerHealth(lag: () => Promise<ConsumerLag>): Promise<DependencyHealth> {
  try {
    return { available: true, ...(await within(lag(), CONSUMER_READ_TIMEOUT_MS)) };
  } catch {
    return { available: false };
  }
}

/**
 * A service's answer to its ping: it can serve when its database answers. A consumer whose lag
 * cannot be read (JetStream away) degrades it without making it unavailable: its requests are
 * served meanwhile, and the messages wait in the stream. Lag is reported, not judged: alerts judge
 * it over minutes (infra/prometheus/alerts.yml), a health check sees one moment.
 */
export async function checkServiceHealth(checks: HealthChecks): Promise<ServiceSelfReport> {
  const consumers = checks.consumers ?? [];
  const [database, lags] = await Promise.all([
    checks.database(),
    Promise.all(consumers.map((c) => consumerHealth(c.lag))),
  ]);
  const schemaVersion = checks.schemaVersion?.() ?? null;
  return {
    available: database.available,
    ...(schemaVersion ? { schema_version: schemaVersion } : {}),
    dependencies: {
      database,
      // This report reaches the gateway over the service's own connection: that is the check.
      nats: { available: true },
      ...Object.fromEntries(consumers.map((c, i) => [c.durable, lags[i] as DependencyHealth])),
    },
  };
}
