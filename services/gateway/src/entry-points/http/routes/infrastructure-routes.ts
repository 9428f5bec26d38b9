import { CAPABILITIES, parseOrThrow, UsageQuery } from '@tm/contracts';
import { Router } from 'express';
import type { BillingClient } from '../../../clients/billing-client.js';
import { checkHealth, type HealthProbes } from '../../../domain/check-health.js';
import { type AuthDeps, readerOf, requireReader } from '../middleware/authenticate.js';

/**
 * Infrastructure routes. Health and capabilities hold no tenant data, so they need no credential
 * (load balancers call health); usage takes an API key or a session (read-only, the spec's rule 3).
 */
export function infrastructureRoutes(deps: {
  probes: HealthProbes;
  deployment: { version: string; environment: string };
  auth: AuthDeps;
  billing: BillingClient;
}) {
  const router = Router();
  router.get('/usage', requireReader(deps.auth, 'telemetry:read', 'usage:read'), async (req, res) => {
    const { window_minutes } = parseOrThrow(UsageQuery, req.query, 'usage query');
    res.json(
      await deps.billing.usage({
        tenant_id: readerOf(req).tenantId,
        request_id: req.requestId,
        window_minutes,
      }),
    );
  });
  router.get('/health', async (_req, res) => {
    res.json(await checkHealth(deps.probes, deps.deployment));
  });
  router.get('/capabilities', (_req, res) => {
    res.json(CAPABILITIES);
  });
  return router;
}
