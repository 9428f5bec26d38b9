import {
  CAPABILITIES,
  CONTRACT_VERSION,
  type HealthResponse,
  type ReleaseRecord,
  SCHEMA_VERSION,
} from '@tm/contracts';
import { type HealthProbes, inspectDeployment } from './check-health.js';

/**
 * Health by entry without its readings: each entry's availability and whether writes need it, not
 * its database latencies, consumer backlogs or re-index counts, which tell an outsider how loaded
 * and how big the deployment is.
 */
function withoutReadings(health: HealthResponse): HealthResponse {
  const services = Object.fromEntries(
    Object.entries(health.services).map(([name, s]) => [
      name,
      { available: s.available, required: s.required },
    ]),
  );
  return { ...health, services };
}

/**
 * The deployment's release record as it is now: versions, the capability manifest, and one round
 * of health probes, whose answers also carry each database's latest applied migration. The public
 * view leaves out the migrations and health's readings; an operator sees everything.
 */
export async function composeRelease(
  probes: HealthProbes,
  deployment: { version: string; environment: string },
  requestId: string,
  view: ReleaseRecord['view'],
): Promise<ReleaseRecord> {
  const { health, schemaVersions } = await inspectDeployment(probes, deployment);
  return {
    view,
    contract_version: CONTRACT_VERSION,
    deployment_version: deployment.version,
    environment: deployment.environment,
    schema_version: SCHEMA_VERSION,
    ...(view === 'operator' && { schema_versions: schemaVersions }),
    capabilities: CAPABILITIES,
    health: view === 'operator' ? health : withoutReadings(health),
    recorded_at: new Date().toISOString(),
    request_id: requestId,
  };
}
