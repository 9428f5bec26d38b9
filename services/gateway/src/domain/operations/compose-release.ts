import { CAPABILITIES, CONTRACT_VERSION, type ReleaseRecord, SCHEMA_VERSION } from '@tm/contracts';
import { type HealthProbes, inspectDeployment } from './check-health.js';

/**
 * The deployment's release record as it is now: versions, the capability manifest, and one round
 * of health probes, whose answers also carry each database's latest applied migration.
 */
export async function composeRelease(
  probes: HealthProbes,
  deployment: { version: string; environment: string },
  requestId: string,
): Promise<ReleaseRecord> {
  const { health, schemaVersions } = await inspectDeployment(probes, deployment);
  return {
    contract_version: CONTRACT_VERSION,
    deployment_version: deployment.version,
    environment: deployment.environment,
    schema_version: SCHEMA_VERSION,
    schema_versions: schemaVersions,
    capabilities: CAPABILITIES,
    health,
    recorded_at: new Date().toISOString(),
    request_id: requestId,
  };
}
