import { z } from 'zod';
import { CONTRACT_VERSION } from './runtime.js';
import { Anomaly } from './telemetry.js';

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

/** GET /api/v1/infrastructure/status: health, monitoring and consent in one answer for the caller's tenant. */
export const StatusResponse = HealthResponse.omit({ production_ready: true })
  .extend({
    production_ready: z.literal(false),
    provider: z.string(),
    model_version: z.string(),
    monitoring: z.object({
      state: z
        .enum(['ok', 'anomalous', 'no_data', 'unavailable'])
        .meta({ description: 'unavailable: the telemetry service did not answer' }),
      anomalies: z
        .array(Anomaly)
        .meta({ description: 'The anomalies over the window, as the anomalies route reports them' }),
      anomaly_count: z.number().int().nullable().meta({ description: 'null when telemetry did not answer' }),
      window_minutes: z.number().int(),
      request_records: z.object({
        queued: z.number().int().meta({ description: 'Waiting in this gateway instance to be published' }),
        dropped: z
          .number()
          .int()
          .meta({ description: 'Dropped by this gateway instance since it started (buffer full)' }),
      }),
    }),
    consent: z.object({
      state: z.enum(['granted', 'missing']),
      scope: z.literal('private_memory'),
    }),
    request_id: z.string(),
  })
  .meta({ id: 'StatusResponse' });
export type StatusResponse = z.infer<typeof StatusResponse>;

export const SMOKE_TEST_STEPS = ['write', 'recall', 'delete'] as const;

export const SmokeTestResponse = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    request_id: z.string(),
    outcome: z.enum(['passed', 'failed']),
    namespace: z.string().meta({ description: 'The reserved namespace it ran in, emptied afterwards' }),
    steps: z.array(
      z.object({
        step: z.enum(SMOKE_TEST_STEPS),
        outcome: z.enum(['passed', 'failed', 'skipped']),
        detail: z.string(),
        latency_ms: z.number().nullable(),
      }),
    ),
    metered: z.literal(true).meta({ description: 'Its write and recall are billed like any other' }),
  })
  .meta({ id: 'SmokeTestResponse' });
export type SmokeTestResponse = z.infer<typeof SmokeTestResponse>;
