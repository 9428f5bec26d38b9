import { ImportListQuery, parseOrThrow, RESTORE_LIMITS, RestoreQuery } from '@tm/contracts';
import { Router } from 'express';
import type { TemplateClient } from '../../../clients/template-client.js';
import { readRestore, startRestore } from '../../../domain/data-plane/restore-export.js';
import { type AuthDeps, requireApiKey, scopeOf } from '../middleware/authenticate.js';
import { jsonBodyUpTo } from '../middleware/json-body.js';
import { noteForRecord } from '../middleware/record-requests.js';
import { uuidRef } from '../path-params.js';
import { refuseReserved } from './reserved-namespace.js';

/**
 * `/api/v1/memory/restore`: an export file restored as a job of the template service's import
 * worker, with progress and failures. Every route takes `memory:write`, as imports do: a restore's
 * records are writes (billed as writes), and its status belongs to whoever writes.
 */
export function restoreRoutes(templates: TemplateClient, auth: AuthDeps): Router {
  const router = Router();
  const write = requireApiKey(auth, 'memory:write');

  router.post('/restore', write, ...jsonBodyUpTo(RESTORE_LIMITS.bodyMaxBytes), async (req, res) => {
    const query = parseOrThrow(RestoreQuery, req.query, 'restore query');
    const restore = readRestore(req.body, query);
    noteForRecord(req, { namespace: refuseReserved(restore.namespace) });
    const job = await startRestore(templates, { scope: scopeOf(req), requestId: req.requestId }, restore);
    res.status(202).json(job);
  });

  router.get('/restore/:id', write, async (req, res) => {
    const job = await templates.getRestore({
      tenant_id: scopeOf(req).tenant_id,
      restore_id: uuidRef(req.params.id, 'restore'),
    });
    noteForRecord(req, { namespace: job.namespace });
    if (job.state === 'processing') res.setHeader('Retry-After', '1');
    res.json(job);
  });

  router.get('/restore/:id/failures', write, async (req, res) => {
    const query = parseOrThrow(ImportListQuery, req.query, 'query');
    res.json(
      await templates.listRestoreFailures({
        tenant_id: scopeOf(req).tenant_id,
        restore_id: uuidRef(req.params.id, 'restore'),
        ...query,
      }),
    );
  });

  return router;
}
