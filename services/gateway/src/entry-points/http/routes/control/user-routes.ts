import { parseOrThrow, UserCreateRequest, UserUpdateRequest } from '@tm/contracts';
import { Router } from 'express';
import {
  createTenantUser,
  getTenantUser,
  listTenantUsers,
  updateTenantUser,
} from '../../../../domain/control/manage-users.js';
import { clientAddressOf } from '../../client-address.js';
import { accountOf } from '../../middleware/authenticate.js';
import { jsonBody } from '../../middleware/json-body.js';
import { idParam } from '../../path-params.js';
import type { ControlDeps } from './control-deps.js';

export function userRoutes(deps: ControlDeps): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    res.json(await listTenantUsers(accountOf(req)));
  });

  router.post('/', ...jsonBody, async (req, res) => {
    const input = parseOrThrow(UserCreateRequest, req.body, 'user');
    res.status(201).json(await createTenantUser(accountOf(req), input, clientAddressOf(req)));
  });

  router.get('/:id', async (req, res) => {
    res.json(await getTenantUser(accountOf(req), idParam(req, 'user')));
  });

  router.patch('/:id', ...jsonBody, async (req, res) => {
    const change = parseOrThrow(UserUpdateRequest, req.body, 'user change');
    res.json(await updateTenantUser(accountOf(req), idParam(req, 'user'), change, deps));
  });

  return router;
}
