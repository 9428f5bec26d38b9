import { CAPABILITIES } from '@tm/contracts';
import { Router } from 'express';
import { checkHealth, type HealthProbes } from '../../../domain/check-health.js';

/** Public infrastructure routes: no tenant data, so no credential needed (load balancers call health). */
export function infrastructureRoutes(deps: {
  probes: HealthProbes;
  deployment: { version: string; environment: string };
}) {
  const router = Router();
  router.get('/health', async (_req, res) => {
    res.json(await checkHealth(deps.probes, deps.deployment));
  });
  router.get('/capabilities', (_req, res) => {
    res.json(CAPABILITIES);
  });
  return router;
}
