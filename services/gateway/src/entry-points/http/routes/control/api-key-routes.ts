import { ApiKeyCreateRequest, ApiKeyUpdateRequest, parseOrThrow, StorageAttachRequest } from '@tm/contracts';
import { Router } from 'express';
import {
  attachStorageConnection,
  createApiKey,
  detachStorageConnection,
  getApiKey,
  listApiKeys,
  revokeTenantApiKey,
  rotateApiKey,
  updateApiKey,
} from '../../../../domain/control/manage-api-keys.js';
import { accountOf } from '../../middleware/authenticate.js';
import { jsonBody } from '../../middleware/json-body.js';
import { idParam } from '../../path-params.js';
import type { ControlDeps } from './control-deps.js';

export function apiKeyRoutes(deps: ControlDeps): Router {
  const router = Router();
  const keyId = (req: Parameters<typeof idParam>[0]) => idParam(req, 'API key');

  router.get('/', async (req, res) => {
    res.json(await listApiKeys(accountOf(req)));
  });

  router.post('/', ...jsonBody, async (req, res) => {
    const input = parseOrThrow(ApiKeyCreateRequest, req.body, 'API key');
    res.status(201).json(await createApiKey(accountOf(req), input, deps));
  });

  router.get('/:id', async (req, res) => {
    res.json(await getApiKey(accountOf(req), keyId(req)));
  });

  router.patch('/:id', ...jsonBody, async (req, res) => {
    const change = parseOrThrow(ApiKeyUpdateRequest, req.body, 'API key change');
    res.json(await updateApiKey(accountOf(req), keyId(req), change, deps));
  });

  router.post('/:id/revoke', async (req, res) => {
    res.json(await revokeTenantApiKey(accountOf(req), keyId(req), deps));
  });

  router.post('/:id/rotate', async (req, res) => {
    res.status(201).json(await rotateApiKey(accountOf(req), keyId(req), deps));
  });

  router.put('/:id/storage-connection', ...jsonBody, async (req, res) => {
    const { storage_connection_id } = parseOrThrow(StorageAttachRequest, req.body, 'attachment');
    res.json(await attachStorageConnection(accountOf(req), keyId(req), storage_connection_id, deps));
  });

  router.delete('/:id/storage-connection', async (req, res) => {
    res.json(await detachStorageConnection(accountOf(req), keyId(req), deps));
  });

  return router;
}
