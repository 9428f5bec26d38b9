import { Router } from 'express';
import { changeConsent, consentHistory, getConsent } from '../../../../domain/control/manage-consent.js';
import { accountOf } from '../../middleware/authenticate.js';
import type { ControlDeps } from './control-deps.js';

/** The signed-in user's own private-memory consent, its grant and revoke, and its audit trail. */
export function consentRoutes(deps: ControlDeps): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    res.json(await getConsent(accountOf(req)));
  });

  router.post('/grant', async (req, res) => {
    res.json(await changeConsent(accountOf(req), 'granted', { requestId: req.requestId, nc: deps.nc }));
  });

  router.post('/revoke', async (req, res) => {
    res.json(await changeConsent(accountOf(req), 'revoked', { requestId: req.requestId, nc: deps.nc }));
  });

  router.get('/events', async (req, res) => {
    res.json(await consentHistory(accountOf(req)));
  });

  return router;
}
