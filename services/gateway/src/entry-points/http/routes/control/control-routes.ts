import { Router } from 'express';
import { type AuthDeps, requireSession } from '../../middleware/authenticate.js';
import { accountRoutes } from './account-routes.js';
import { apiKeyRoutes } from './api-key-routes.js';
import { billingRoutes } from './billing-routes.js';
import { consentRoutes } from './consent-routes.js';
import type { ControlDeps } from './control-deps.js';
import { operatorTokenRoutes } from './operator-token-routes.js';
import { sessionRoutes } from './session-routes.js';
import { storageConnectionRoutes } from './storage-connection-routes.js';
import { userRoutes } from './user-routes.js';
import { webhookRoutes } from './webhook-routes.js';

/**
 * /api/v1/control: the tenant manages itself with a browser session. Login is the one route without
 * a credential; everything else needs a live session, then the role the action asks for.
 */
export function controlRoutes(auth: AuthDeps, deps: ControlDeps): Router {
  const router = Router();
  router.use(sessionRoutes(auth, deps));
  const signedIn = Router();
  // Bodies are parsed by the routes that take one: a stray body on a GET is ignored, not refused.
  signedIn.use(requireSession(auth));
  signedIn.use(accountRoutes(deps));
  signedIn.use('/users', userRoutes(deps));
  signedIn.use('/api-keys', apiKeyRoutes(deps));
  signedIn.use('/storage-connections', storageConnectionRoutes(deps));
  signedIn.use('/consent', consentRoutes(deps));
  signedIn.use('/operator-tokens', operatorTokenRoutes());
  signedIn.use(billingRoutes(deps.billing));
  signedIn.use('/webhook-endpoints', webhookRoutes(deps.webhooks));
  router.use(signedIn);
  return router;
}
