import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ToolContext } from './context.js';
import { callService, success } from './results.js';

export function registerStatus(server: McpServer, { tm, defaultNamespace }: ToolContext) {
  server.registerTool(
    'status',
    {
      title: 'Memory service status',
      description:
        'Check that the memory service is reachable and healthy before relying on it: service health, ' +
        'monitoring anomalies, and whether this tenant has private-memory consent (without it, ' +
        '`remember` answers state "not_retained" and keeps nothing).',
      inputSchema: {},
      outputSchema: {
        status: z.enum(['ok', 'degraded', 'unavailable']),
        available: z.boolean(),
        services: z.record(z.string(), z.object({ available: z.boolean() })),
        monitoring: z.object({ state: z.string(), anomaly_count: z.number().nullable() }),
        consent: z.enum(['granted', 'missing']),
        execution_mode: z.string(),
        deployment_version: z.string(),
        base_url: z.string(),
        default_namespace: z.string().nullable(),
        request_id: z.string(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () =>
      callService(async () => {
        const status = await tm.infrastructure.status();
        const down = Object.entries(status.services)
          .filter(([, service]) => !service.available)
          .map(([name]) => name);
        return success(
          [
            `Service ${status.status}${down.length > 0 ? ` (not answering: ${down.join(', ')})` : ', every service answering'} at ${tm.baseUrl}.`,
            `monitoring: ${status.monitoring.state}, anomalies: ${status.monitoring.anomaly_count ?? 'unknown'}`,
            `private-memory consent: ${status.consent.state}`,
            `execution_mode: ${status.execution_mode} (deterministic lexical ranking, no model runs)`,
            `default namespace: ${defaultNamespace ?? 'none (pass namespace to each call)'}`,
            `request_id: ${status.request_id}`,
          ].join('\n'),
          {
            status: status.status,
            available: status.available,
            services: status.services,
            monitoring: { state: status.monitoring.state, anomaly_count: status.monitoring.anomaly_count },
            consent: status.consent.state,
            execution_mode: status.execution_mode,
            deployment_version: status.deployment_version,
            base_url: tm.baseUrl,
            default_namespace: defaultNamespace ?? null,
            request_id: status.request_id,
          },
        );
      }),
  );
}
