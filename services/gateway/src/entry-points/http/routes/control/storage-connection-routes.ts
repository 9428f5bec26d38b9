import { parseOrThrow, StorageConnectionCreateRequest, StorageConnectionUpdateRequest } from '@tm/contracts';
import { Router } from 'express';
import {
  createTenantStorageConnection,
  getTenantStorageConnection,
  listTenantStorageConnections,
  updateTenantStorageConnection,
} from '../../../../domain/control/manage-storage-connections.js';
import { accountOf } from '../../middleware/authenticate.js';
import { jsonBody } from '../../middleware/json-body.js';
import { idParam } from '../../path-params.js';
import type { ControlDeps } from './control-deps.js';

export function storageConnectionRoutes(deps: ControlDeps): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    res.json(await listTenantStorageConnections(accountOf(req)));
  });

  router.post('/', ...jsonBody, async (req, res) => {
    const input = parseOrThrow(StorageConnectionCreateRequest, req.body, 'storage connection');
    res.status(201).json(await createTenantStorageConnection(accountOf(req), input, deps));
  });

  router.get('/:id', async (req, res) => {
    res.json(await getTenantStorageConnection(accountOf(req), idParam(req, 'storage connection')));
  });

  router.patch('/:id', ...jsonBody, async (req, res) => {
    const change = parseOrThrow(StorageConnectionUpdateRequest, req.body, 'storage connection change');
    res.json(
      await updateTenantStorageConnection(accountOf(req), idParam(req, 'storage connection'), change, deps),
    );
  });

  return router;
}
