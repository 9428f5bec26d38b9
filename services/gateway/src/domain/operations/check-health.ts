import { CONTRACT_VERSION, type HealthResponse, SCHEMA_VERSION } from '@tm/contracts';

export interface HealthProbes {
  /** Each probe resolves when its dependency answered, and rejects otherwise. */
  [dependency: string]: () => Promise<unknown>;
}

/**
 * Ask every required dependency to answer, in parallel and bounded by each probe's own deadline.
 * `available: true` means exactly that they answered, nothing more.
 */
export async function checkHealth(
  probes: HealthProbes,
  deployment: { version: string; environment: string },
): Promise<HealthResponse> {
  const names = Object.keys(probes);
  const results = await Promise.allSettled(names.map((n) => probes[n]?.()));
  const services = Object.fromEntries(
    names.map((n, i) => [n, { available: results[i]?.status === 'fulfilled' }]),
  );
  const available = Object.values(services).every((s) => s.available);
  return {
    status: available ? 'ok' : 'degraded',
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
}
