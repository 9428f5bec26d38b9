import {
  parseOrThrow,
  WebhookDeliveryQuery,
  WebhookEndpointCreateRequest,
  WebhookEndpointUpdateRequest,
} from '@tm/contracts';
import { type Request, Router } from 'express';
import type { WebhooksClient } from '../../../../clients/webhooks-client.js';
import { requireRole } from '../../../../domain/identity/role-permissions.js';
import { accountOf } from '../../middleware/authenticate.js';
import { jsonBody } from '../../middleware/json-body.js';
import { idParam, uuidRef } from '../../path-params.js';

/**
 * /api/v1/control/webhook-endpoints: owners and admins register endpoints and read their
 * delivery log; the webhooks service answers, for the signed-in tenant only.
 */
export function webhookRoutes(webhooks: WebhooksClient): Router {
  const router = Router();
  /** The tenant, once its role may manage webhooks. */
  const tenantOf = (req: Request) => {
    const account = accountOf(req);
    requireRole(account.role, 'webhooks:manage');
    return account.tenantId;
  };
  const ref = (req: Request) => ({ tenant_id: tenantOf(req), endpoint_id: idParam(req, 'webhook endpoint') });

  router.get('/', async (req, res) => {
    res.json(await webhooks.listEndpoints({ tenant_id: tenantOf(req) }));
  });

  router.post('/', ...jsonBody, async (req, res) => {
    const tenant_id = tenantOf(req);
    const body = parseOrThrow(WebhookEndpointCreateRequest, req.body, 'webhook endpoint');
    res.status(201).json(await webhooks.createEndpoint({ tenant_id, body }));
  });

  router.get('/:id', async (req, res) => {
    res.json(await webhooks.getEndpoint(ref(req)));
  });

  router.patch('/:id', ...jsonBody, async (req, res) => {
    const target = ref(req);
    const body = parseOrThrow(WebhookEndpointUpdateRequest, req.body, 'webhook endpoint change');
    res.json(await webhooks.updateEndpoint({ ...target, body }));
  });

  router.delete('/:id', async (req, res) => {
    res.json(await webhooks.deleteEndpoint(ref(req)));
  });

  router.post('/:id/rotate-secret', async (req, res) => {
    res.json(await webhooks.rotateSecret(ref(req)));
  });

  router.get('/:id/deliveries', async (req, res) => {
    const target = ref(req);
    const query = parseOrThrow(WebhookDeliveryQuery, req.query, 'delivery query');
    res.json(await webhooks.listDeliveries({ ...target, query }));
  });

  router.post('/:id/deliveries/:delivery_id/redeliver', async (req, res) => {
    const target = ref(req);
    const delivery_id = uuidRef(req.params.delivery_id, 'webhook delivery');
    res.status(202).json(await webhooks.redeliver({ ...target, delivery_id }));
  });

  return router;
}
