import type { LivenessResponse } from '@tm/contracts';
import type { RequestHandler } from 'express';

/**
 * GET /api/v1/infrastructure/health/live: 200 while this process runs and its event loop turns.
 * It asks no dependency, so an orchestrator restarts the gateway only when the gateway itself is
 * stuck, never because PostgreSQL or a service is down (restarting would not bring those back).
 */
export const liveness: RequestHandler = (_req, res) => {
  res.json({ status: 'alive', checked_at: new Date().toISOString() } satisfies LivenessResponse);
};
