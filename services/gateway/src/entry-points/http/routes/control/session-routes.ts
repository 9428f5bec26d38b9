import { LoginRequest, parseOrThrow } from '@tm/contracts';
import { Router } from 'express';
import { login } from '../../../../domain/control/login.js';
import { logout } from '../../../../domain/control/manage-account.js';
import { clientAddressOf } from '../../client-address.js';
import { type AuthDeps, accountOf, requireSession } from '../../middleware/authenticate.js';
import { jsonBody } from '../../middleware/json-body.js';
import type { ControlDeps } from './control-deps.js';

export function sessionRoutes(auth: AuthDeps, deps: ControlDeps): Router {
  const router = Router();

  /**
   * Log in: email and password for a session token (shown once). An address this instance was just
   * told is over its failed-login limit is refused before its body is read (rate-limits.ts).
   */
  router.post(
    '/sessions',
    async (req, _res, next) => {
      await deps.rateLimits.refuseRememberedAddress(clientAddressOf(req));
      next();
    },
    ...jsonBody,
    async (req, res) => {
      const credentials = parseOrThrow(LoginRequest, req.body, 'login request');
      res.status(201).json(await login(credentials, clientAddressOf(req), deps));
    },
  );

  /** Log out: the token stops working at once. */
  router.delete('/sessions/current', requireSession(auth), async (req, res) => {
    await logout(accountOf(req));
    res.status(204).end();
  });

  return router;
}
