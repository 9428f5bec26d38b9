import { z } from 'zod';
import { CONTRACT_VERSION } from '../runtime.js';
import { CapabilitiesResponse, HealthResponse } from './infrastructure.js';

/**
 * The spec: "Release records should hold the deployment version, contract version, schema version,
 * capability manifest and health result". `GET /api/v1/infrastructure/release` answers one for the
 * deployment as it is now, and the dev launcher keeps one per start in `.data/releases/`. Without a
 * credential it is the public view: no migration names, and health by entry without readings (no
 * latencies, backlogs or re-index counts); a live operator token (X-Operator-Token) sees all of it.
 */
export const ReleaseRecord = z
  .object({
    view: z.enum(['public', 'operator']).meta({
      description:
        'public: without a credential (no `schema_versions`; health says each entry is available and required, no readings); operator: with a live operator token in X-Operator-Token, everything',
    }),
    contract_version: z.literal(CONTRACT_VERSION),
    deployment_version: z.string(),
    environment: z.string(),
    schema_version: z.string().meta({ description: 'The API schema version (the OpenAPI document’s)' }),
    schema_versions: z.record(z.string(), z.string().nullable()).optional().meta({
      description:
        'Operator view only. Per database, by health entry (`gateway_store`, `memory`, `billing`, `telemetry`, `template`, `webhooks`): its latest applied migration; null when the service did not say (down, or from before it was reported)',
    }),
    capabilities: CapabilitiesResponse,
    health: HealthResponse,
    recorded_at: z.iso.datetime(),
    request_id: z.string(),
  })
  .meta({ id: 'ReleaseRecord' });
export type ReleaseRecord = z.infer<typeof ReleaseRecord>;
