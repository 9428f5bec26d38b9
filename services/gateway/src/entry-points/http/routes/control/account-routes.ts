import { PasswordChangeRequest, parseOrThrow } from '@tm/contracts';
import { Router } from 'express';
import { changePassword, getAccount } from '../../../../domain/control/manage-account.js';
import { accountOf } from '../../middleware/authenticate.js';
import { jsonBody } from '../../middleware/json-body.js';

export function accountRoutes(): Router {
  const router = Router();

  router.get('/account', async (req, res) => {
    res.json(await getAccount(accountOf(req)));
  });

  router.post('/account/password', ...jsonBody, async (req, res) => {
    await changePassword(accountOf(req), parseOrThrow(PasswordChangeRequest, req.body, 'password change'));
    res.status(204).end();
  });

  return router;
}
