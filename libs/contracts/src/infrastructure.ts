import { z } from 'zod';
import { CONTRACT_VERSION } from './runtime.js';

export const CapabilityStatus = z.enum([
  'available_mock',
  'not_deployed',
  'contract_stage',
  'control_plane_only',
  'not_available',
  'research',
]);

export const CapabilitiesResponse = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    schema_version: z.string(),
    production_ready: z.literal(false),
    runtime: z.object({
      execution_mode: z.literal('mock'),
      provider: z.string(),
      model_version: z.string(),
      model_execution: z.literal(false),
    }),
    operations: z.array(
      z.object({
        operation: z.string(),
        method: z.string(),
        path: z.string(),
        status: CapabilityStatus,
      }),
    ),
    capabilities: z.array(
      z.object({ name: z.string(), title: z.string(), status: CapabilityStatus, meaning: z.string() }),
    ),
    guarantees: z.array(z.string()),
    limitations: z.array(z.string()),
    limits: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'CapabilitiesResponse' });
export type CapabilitiesResponse = z.infer<typeof CapabilitiesResponse>;

export const HealthResponse = z
  .object({
    status: z.enum(['ok', 'degraded']),
    available: z
      .boolean()
      .meta({ description: 'Every required service answered its health check; nothing more' }),
    execution_mode: z.literal('mock'),
    deployment_version: z.string(),
    environment: z.string(),
    contract_version: z.literal(CONTRACT_VERSION),
    schema_version: z.string(),
    checked_at: z.string(),
    production_ready: z.literal(false),
    services: z.record(z.string(), z.object({ available: z.boolean() })),
  })
  .meta({ id: 'HealthResponse' });
export type HealthResponse = z.infer<typeof HealthResponse>;
