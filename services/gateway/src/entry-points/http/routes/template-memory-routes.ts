import { randomUUID } from 'node:crypto';
import { CreateTemplateMemoryRequest, parseOrThrow } from '@tm/contracts';
import { Router } from 'express';
import type { MemoryClient } from '../../../clients/memory-client.js';
import type { TemplateClient } from '../../../clients/template-client.js';
import { forgetMemory } from '../../../domain/data-plane/forget-memory.js';
import { resolveIdempotencyKey } from '../../../domain/data-plane/idempotency-key.js';
import { readMemory } from '../../../domain/data-plane/read-memory.js';
import { type AuthDeps, requireApiKey, scopeOf } from '../middleware/authenticate.js';
import { idempotentWrite } from '../middleware/error-handler.js';
import { jsonBody } from '../middleware/json-body.js';
import { meteredNote, noteForRecord } from '../middleware/record-requests.js';
import { pathRef } from '../path-params.js';

/**
 * `/v1/memories`: creating memories from a template's data, and reading any memory by its id. The
 * template service validates, renders and retains the text through the memory service with the
 * caller's scope, so consent, idempotency and billing are those of any write. Creating takes
 * `memory:write`, reading `memory:recall`, forgetting `memory:delete`.
 */
export function templateMemoryRoutes(
  templates: TemplateClient,
  memory: MemoryClient,
  auth: AuthDeps,
): Router {
  const router = Router();

  router.post(
    '/memories',
    idempotentWrite,
    requireApiKey(auth, 'memory:write'),
    ...jsonBody,
    async (req, res) => {
      const body = parseOrThrow(CreateTemplateMemoryRequest, req.body, 'memory request');
      noteForRecord(req, { namespace: body.namespace });
      const header = req.get('idempotency-key');
      // Optional here: without one each call is a new memory (a generated key still makes it one write).
      const idempotencyKey =
        header === undefined ? `tmpl-${randomUUID()}` : resolveIdempotencyKey(header, undefined);
      const result = await templates.createMemory({
        scope: scopeOf(req),
        request_id: req.requestId,
        idempotency_key: idempotencyKey,
        body,
      });
      noteForRecord(req, meteredNote(result));
      const created = result.state === 'retained' && result.idempotency_outcome === 'Accepted';
      res.status(created ? 201 : 200).json(result);
    },
  );

  router.get('/memories/:id', requireApiKey(auth, 'memory:recall'), async (req, res) => {
    const memoryId = pathRef(req.params.id, 'memory');
    res.json(await readMemory(scopeOf(req), req.requestId, memoryId, { memory, templates }));
  });

  // Forget one memory: the namespace deletion's permission, for one record of it.
  router.delete('/memories/:id', requireApiKey(auth, 'memory:delete'), async (req, res) => {
    const memoryId = pathRef(req.params.id, 'memory');
    const receipt = await forgetMemory(scopeOf(req), req.requestId, memoryId, { memory, templates });
    noteForRecord(req, {
      namespace: receipt.namespace,
      state: receipt.state,
      units: 0,
      billingState: 'no_data',
    });
    res.json(receipt);
  });

  return router;
}
