import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Schemas, StatusResponse } from '@text-memory/sdk';
import { z } from 'zod';
import type { ToolContext } from './context.js';
import { mirrors } from './mirrors.js';
import { callService, success } from './results.js';
import { type WithoutNulls, withoutNulls } from './without-nulls.js';

const DependencyHealth = mirrors<Schemas['DependencyHealth']>()(
  z.object({
    available: z.boolean(),
    latency_ms: z.number().optional(),
    pending: z.number().optional(),
    ack_pending: z.number().optional(),
  }),
);

/** One entry of `services`, as the service reports it (a stopped service has no `dependencies`). */
const ServiceHealth = mirrors<Schemas['ServiceHealth']>()(
  z.object({
    available: z.boolean(),
    required: z.boolean().describe('Writes need it: while it is unavailable, status is "unavailable"'),
    dependencies: z
      .record(z.string(), DependencyHealth)
      .describe('What it reported of its database, NATS and consumers; absent when it did not answer')
      .optional(),
  }),
);

/**
 * What `status` answers: health per service, monitoring, consent, and where this server points, its
 * nulls left out (without-nulls.ts).
 */
const StatusOutput = mirrors<
  WithoutNulls<
    Pick<
      StatusResponse,
      'status' | 'available' | 'services' | 'execution_mode' | 'deployment_version' | 'request_id'
    > & {
      monitoring: Pick<StatusResponse['monitoring'], 'state' | 'anomaly_count'>;
      consent: StatusResponse['consent']['state'];
      base_url: string;
      default_namespace: string | null;
    }
  >
>()(
  z.object({
    status: z.enum(['ok', 'degraded', 'unavailable']),
    available: z.boolean(),
    services: z.record(z.string(), ServiceHealth),
    monitoring: z.object({
      state: z.enum(['ok', 'anomalous', 'no_data', 'unavailable']),
      anomaly_count: z.number().describe('Absent when monitoring could not count them').optional(),
    }),
    consent: z.enum(['granted', 'missing']),
    execution_mode: z.literal('mock'),
    deployment_version: z.string(),
    base_url: z.string(),
    default_namespace: z
      .string()
      .describe('The namespace of calls that name none; absent when this server has none')
      .optional(),
    request_id: z.string(),
  }),
);

export function registerStatus(server: McpServer, { tm, defaultNamespace, serviceUrl }: ToolContext) {
  const shownUrl = serviceUrl ?? tm.baseUrl;
  server.registerTool(
    'status',
    {
      title: 'Memory service status',
      description:
        'Check that the memory service is reachable and healthy before relying on it: service health, ' +
        'monitoring anomalies, and whether this tenant has private-memory consent (without it, ' +
        '`remember` answers state "not_retained" and keeps nothing).',
      inputSchema: {},
      outputSchema: StatusOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () =>
      callService(async () => {
        const status = await tm.infrastructure.status();
        const down = Object.entries(status.services)
          .filter(([, service]) => !service.available)
          .map(([name]) => name);
        return success(
          StatusOutput,
          [
            `Service ${status.status}${down.length > 0 ? ` (not answering: ${down.join(', ')})` : ', every service answering'} at ${shownUrl}.`,
            `monitoring: ${status.monitoring.state}, anomalies: ${status.monitoring.anomaly_count ?? 'unknown'}`,
            `private-memory consent: ${status.consent.state}`,
            `execution_mode: ${status.execution_mode} (deterministic lexical ranking, no model runs)`,
            `default namespace: ${defaultNamespace ?? 'none (pass namespace to each call)'}`,
            `request_id: ${status.request_id}`,
          ].join('\n'),
          withoutNulls({
            status: status.status,
            available: status.available,
            services: status.services,
            monitoring: { state: status.monitoring.state, anomaly_count: status.monitoring.anomaly_count },
            consent: status.consent.state,
            execution_mode: status.execution_mode,
            deployment_version: status.deployment_version,
            base_url: shownUrl,
            default_namespace: defaultNamespace ?? null,
            request_id: status.request_id,
          }),
        );
      }),
  );
}
