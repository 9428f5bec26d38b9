import {
  AppError,
  CAPABILITIES,
  CONTRACT_VERSION,
  decodeEventsCursor,
  decodeNamespacesCursor,
  ErrorCode,
  EventsQuery,
  type HealthResponse,
  type HealthUnavailable,
  MetricsQuery,
  type NamespacesPage,
  NamespacesQuery,
  parseOrThrow,
  RUNTIME,
  UsageQuery,
  utcInstant,
  WindowQuery,
} from '@tm/contracts';
import { Router } from 'express';
import type { BillingClient } from '../../../clients/billing-client.js';
import type { MemoryClient } from '../../../clients/memory-client.js';
import type { RequestRecorder } from '../../../clients/request-recorder.js';
import type { TelemetryClient } from '../../../clients/telemetry-client.js';
import { releaseViewFor } from '../../../domain/control/operator-tokens.js';
import { checkHealth, type HealthProbes } from '../../../domain/operations/check-health.js';
import { composeRelease } from '../../../domain/operations/compose-release.js';
import { composeStatus } from '../../../domain/operations/compose-status.js';
import type { SmokeTestPolicy } from '../../../domain/operations/run-smoke-test.js';
import { type AuthDeps, readerOf, requireReader } from '../middleware/authenticate.js';
import { exportRoute } from './export-route.js';
import { smokeTestRoute } from './smoke-test-route.js';

/** A health check is cheap and an outage is seldom over sooner: ask again in two seconds. */
const HEALTH_RETRY_AFTER_S = 2;

/** "memory (database)", "gateway_store": each required entry that cannot serve, and why if known. */
const unavailableParts = (health: HealthResponse) =>
  Object.entries(health.services)
    .filter(([, s]) => s.required && !s.available)
    .map(([name, s]) => {
      const down = Object.entries(s.dependencies ?? {}).filter(([, d]) => !d.available);
      return down.length > 0 ? `${name} (${down.map(([d]) => d).join(', ')})` : name;
    });

export interface InfrastructureDeps {
  probes: HealthProbes;
  deployment: { version: string; environment: string };
  auth: AuthDeps;
  billing: BillingClient;
  memory: MemoryClient;
  telemetry: TelemetryClient;
  requestRecorder: RequestRecorder;
  smokeTestPolicy: SmokeTestPolicy;
}

/**
 * Infrastructure routes. Health, capabilities and the release record hold no tenant data, so they need no credential
 * (load balancers call health). The tenant's telemetry, usage and status take an API key with
 * `telemetry:read` or a session (read-only, the spec's rule 3), and so does the namespace listing (names
 * and counts, no text); export and the smoke test are below.
 */
export function infrastructureRoutes(deps: InfrastructureDeps): Router {
  const router = Router();
  const reader = requireReader(deps.auth, 'telemetry:read', 'telemetry:read');

  router.get('/usage', requireReader(deps.auth, 'telemetry:read', 'usage:read'), async (req, res) => {
    const query = parseOrThrow(UsageQuery, req.query, 'usage query');
    res.json(
      await deps.billing.usage({ ...query, tenant_id: readerOf(req).tenantId, request_id: req.requestId }),
    );
  });
  router.get('/events', reader, async (req, res) => {
    const { limit, offset, cursor, operation, outcome, status, from, to } = parseOrThrow(
      EventsQuery,
      req.query,
      'events query',
    );
    const before = cursor === undefined ? null : decodeEventsCursor(cursor);
    if (cursor !== undefined && (before === null || offset > 0)) {
      const message = before
        ? 'send cursor or offset, not both'
        : 'cursor must be a next_cursor this route returned';
      throw new AppError(ErrorCode.ValidationFailed, `Invalid events query: ${message}`, {
        fields: [{ path: 'cursor', message }],
      });
    }
    const page = await deps.telemetry.events({
      tenant_id: readerOf(req).tenantId,
      limit,
      offset,
      before,
      filter: {
        operation: operation ?? null,
        outcome: outcome ?? null,
        status: status ?? null,
        // In UTC: the database refuses some offsets the ISO format allows (+23:59).
        from: from === undefined ? null : utcInstant(from),
        to: to === undefined ? null : utcInstant(to),
      },
    });
    res.json({ contract_version: CONTRACT_VERSION, ...page });
  });
  router.get('/namespaces', reader, async (req, res) => {
    const { limit, cursor } = parseOrThrow(NamespacesQuery, req.query, 'namespaces query');
    const page = await deps.memory.listNamespaces({
      tenant_id: readerOf(req).tenantId,
      request_id: req.requestId,
      // The query's schema has checked the cursor decodes.
      after: cursor === undefined ? null : decodeNamespacesCursor(cursor),
      limit,
    });
    res.json({
      contract_version: CONTRACT_VERSION,
      data: page.data,
      paging: page.paging,
      request_id: req.requestId,
    } satisfies NamespacesPage);
  });
  router.get('/metrics', reader, async (req, res) => {
    const query = parseOrThrow(MetricsQuery, req.query, 'metrics query');
    const summary = await deps.telemetry.metrics({ ...query, tenant_id: readerOf(req).tenantId });
    res.json({
      contract_version: CONTRACT_VERSION,
      ...summary,
      deployment: {
        deployment_version: deps.deployment.version,
        environment: deps.deployment.environment,
        execution_mode: RUNTIME.execution_mode,
        provider: RUNTIME.provider,
        model_version: RUNTIME.model_version,
      },
      request_id: req.requestId,
    });
  });
  router.get('/anomalies', reader, async (req, res) => {
    const { window_minutes } = parseOrThrow(WindowQuery, req.query, 'anomalies query');
    const report = await deps.telemetry.anomalies({ tenant_id: readerOf(req).tenantId, window_minutes });
    res.json({ contract_version: CONTRACT_VERSION, ...report, request_id: req.requestId });
  });
  router.get('/status', reader, async (req, res) => {
    parseOrThrow(WindowQuery.pick({}), req.query, 'status query');
    res.json(await composeStatus({ ...deps, recorder: deps.requestRecorder }, readerOf(req), req.requestId));
  });
  router.get('/health', async (req, res) => {
    const health = await checkHealth(deps.probes, deps.deployment);
    if (health.available) {
      res.json(health);
      return;
    }
    // The report is the answer either way; a 503 is what a load balancer reads (decisions/reliability.md).
    res.locals.errorCode = ErrorCode.ServiceUnavailable; // for the request record
    res
      .status(503)
      .setHeader('Retry-After', String(HEALTH_RETRY_AFTER_S))
      .json({
        ...health,
        status: 'unavailable',
        available: false,
        error: `Writes cannot be served now: ${unavailableParts(health).join(', ')} unavailable`,
        retryable: true,
        request_id: req.requestId,
        details: { code: ErrorCode.ServiceUnavailable, request_id: req.requestId },
      } satisfies HealthUnavailable);
  });
  router.get('/capabilities', (_req, res) => {
    res.json(CAPABILITIES);
  });
  // Public like health and capabilities, which it is made of; an operator token adds the internals
  // (decisions/control-plane.md, "The release record's public and operator views").
  router.get('/release', async (req, res) => {
    const view = await releaseViewFor(req.get('x-operator-token'));
    res.json(await composeRelease(deps.probes, deps.deployment, req.requestId, view));
  });
  router.use(exportRoute(deps));
  router.use(smokeTestRoute(deps));
  return router;
}
