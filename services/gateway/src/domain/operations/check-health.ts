import {
  CONTRACT_VERSION,
  type HealthResponse,
  SCHEMA_VERSION,
  type ServiceHealth,
  type ServiceSelfReport,
} from '@tm/contracts';

/** One entry of the health report: a service (its ping) or the gateway's own database. */
export interface HealthProbe {
  /** Writes need it: while it is unavailable the deployment is, and health answers 503. */
  required: boolean;
  /**
   * Resolves with what the dependency says of itself, or with nothing when answering is all it can
   * say (a service of an older release); rejects when it did not answer within its deadline.
   */
  check: () => Promise<Partial<ServiceSelfReport> | undefined>;
}

export type HealthProbes = Record<string, HealthProbe>;

/** One entry's health, and the schema version it reported (null when it did not say). */
async function probe({ required, check }: HealthProbe): Promise<[ServiceHealth, string | null]> {
  try {
    const report = await check();
    const health: ServiceHealth = {
      available: report?.available ?? true,
      required,
      ...(report?.dependencies && { dependencies: report.dependencies }),
      ...(report?.reindex && { reindex: report.reindex }),
    };
    return [health, report?.schema_version ?? null];
  } catch {
    return [{ available: false, required }, null];
  }
}

/**
 * Ask every dependency, in parallel, each bounded by its probe's own deadline. `available` is the
 * spec's "the required service answered the health check": every required entry answered and can
 * serve. `status` adds what is optional: `degraded` when anything else, or any dependency a service
 * reported, is down.
 */
export async function checkHealth(
  probes: HealthProbes,
  deployment: { version: string; environment: string },
): Promise<HealthResponse> {
  return (await inspectDeployment(probes, deployment)).health;
}

/**
 * Health, and each entry's schema version (its database's latest migration) from the same round of
 * probes: what a release record holds (compose-release.ts).
 */
export async function inspectDeployment(
  probes: HealthProbes,
  deployment: { version: string; environment: string },
): Promise<{ health: HealthResponse; schemaVersions: Record<string, string | null> }> {
  const names = Object.keys(probes);
  const probed = await Promise.all(names.map((name) => probe(probes[name] as HealthProbe)));
  const entries = probed.map(([health]) => health);
  const services = Object.fromEntries(names.map((name, i) => [name, entries[i] as ServiceHealth]));
  const schemaVersions = Object.fromEntries(names.map((name, i) => [name, probed[i]?.[1] ?? null]));
  const available = entries.every((s) => s.available || !s.required);
  const whole = entries.every(
    (s) => s.available && Object.values(s.dependencies ?? {}).every((d) => d.available),
  );
  const health: HealthResponse = {
    status: !available ? 'unavailable' : whole ? 'ok' : 'degraded',
    available,
    execution_mode: 'mock',
    deployment_version: deployment.version,
    environment: deployment.environment,
    contract_version: CONTRACT_VERSION,
    schema_version: SCHEMA_VERSION,
    checked_at: new Date().toISOString(),
    production_ready: false,
    services,
  };
  return { health, schemaVersions };
}
