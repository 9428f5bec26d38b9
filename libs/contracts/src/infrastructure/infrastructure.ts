import { z } from 'zod';
import { ErrorDetails } from '../http/envelope.js';
import { CONTRACT_VERSION } from '../runtime.js';
import { Anomaly } from '../telemetry/telemetry.js';
import { DependencyHealth, ReindexProgress } from './service-health.js';

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

/** One entry of health's `services`: a service, or the gateway's own database (`gateway_store`). */
export const ServiceHealth = z
  .object({
    available: z
      .boolean()
      .meta({ description: 'It answered within its deadline, and can serve (its database answered)' }),
    required: z
      .boolean()
      .meta({ description: 'Writes need it: while it is unavailable, health answers 503' }),
    dependencies: z.record(z.string(), DependencyHealth).optional().meta({
      description:
        'What it reported of its own dependencies (`database`, `nats`, its JetStream consumers by name); absent when it did not answer',
    }),
    reindex: ReindexProgress.optional().meta({
      description:
        'The memory service: namespaces written before recall matched on stems, re-indexed in the background; absent when none needed it',
    }),
  })
  .meta({ id: 'ServiceHealth' });
export type ServiceHealth = z.infer<typeof ServiceHealth>;

export const HealthResponse = z
  .object({
    status: z.enum(['ok', 'degraded', 'unavailable']).meta({
      description:
        'ok: everything answered; degraded: serving, but something optional is down (see services); ' +
        'unavailable: writes cannot be served (HTTP 503)',
    }),
    available: z.boolean().meta({
      description: 'Every required service answered its health check (so writes can be served); nothing more',
    }),
    execution_mode: z.literal('mock'),
    deployment_version: z.string(),
    environment: z.string(),
    contract_version: z.literal(CONTRACT_VERSION),
    schema_version: z.string(),
    checked_at: z.string(),
    production_ready: z.literal(false),
    services: z.record(z.string(), ServiceHealth),
  })
  .meta({ id: 'HealthResponse' });
export type HealthResponse = z.infer<typeof HealthResponse>;

/** Health's 503: the same report, with the error envelope's fields beside it. */
export const HealthUnavailable = HealthResponse.extend({
  status: z.literal('unavailable'),
  available: z.literal(false),
  error: z.string(),
  retryable: z.literal(true),
  request_id: z.string(),
  details: ErrorDetails,
}).meta({ id: 'HealthUnavailable' });
export type HealthUnavailable = z.infer<typeof HealthUnavailable>;

/** GET /api/v1/infrastructure/health/live: the process runs; nothing else was asked. */
export const LivenessResponse = z
  .object({ status: z.literal('alive'), checked_at: z.string() })
  .meta({ id: 'LivenessResponse' });
export type LivenessResponse = z.infer<typeof LivenessResponse>;

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
