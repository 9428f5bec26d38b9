import { PasswordChangeRequest, parseOrThrow } from '@tm/contracts';
import { Router } from 'express';
import { changePassword, getAccount } from '../../../../domain/control/manage-account.js';
import { clientAddressOf } from '../../client-address.js';
import { accountOf } from '../../middleware/authenticate.js';
import { jsonBody } from '../../middleware/json-body.js';
import type { ControlDeps } from './control-deps.js';

export function accountRoutes(deps: ControlDeps): Router {
  const router = Router();

  router.get('/account', async (req, res) => {
    res.json(await getAccount(accountOf(req)));
  });

  router.post('/account/password', ...jsonBody, async (req, res) => {
    const passwords = parseOrThrow(PasswordChangeRequest, req.body, 'password change');
    await changePassword(accountOf(req), passwords, clientAddressOf(req), deps);
    res.status(204).end();
  });

  return router;
}
