import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  WebhookDeliveryList,
  WebhookDeliveryQuery,
  WebhookDeliveryView,
  WebhookEndpointCreated,
  WebhookEndpointCreateRequest,
  WebhookEndpointDeleted,
  WebhookEndpointList,
  WebhookEndpointUpdateRequest,
  WebhookEndpointView,
  WebhookSecretRotated,
} from '../webhooks/webhooks.js';
import { idPath, op } from './openapi-control.js';

const endpointPath = idPath('webhook endpoint');
const deliveryPath = {
  path: z.object({
    id: z.uuid().meta({ description: "The webhook endpoint's id" }),
    delivery_id: z.uuid().meta({ description: "The delivery's id" }),
  }),
};

/** webhook endpoints and their delivery log (owner and admin; docs/decisions/webhooks.md, "Webhooks"). */
export const webhookPaths: ZodOpenApiPathsObject = {
  '/api/v1/control/webhook-endpoints': {
    get: op('listWebhookEndpoints', "The tenant's webhook endpoints (secrets never shown; owner or admin)", {
      status: '200',
      schema: WebhookEndpointList,
      description: 'Endpoints',
    }),
    post: op(
      'createWebhookEndpoint',
      'Register an endpoint for some event types; the answer holds its signing secret, shown only here',
      { status: '201', schema: WebhookEndpointCreated, description: 'Endpoint registered' },
      { body: WebhookEndpointCreateRequest, statuses: [504] },
    ),
  },
  '/api/v1/control/webhook-endpoints/{id}': {
    get: op(
      'getWebhookEndpoint',
      'One webhook endpoint',
      { status: '200', schema: WebhookEndpointView, description: 'Endpoint' },
      { params: endpointPath, statuses: [404, 504] },
    ),
    patch: op(
      'updateWebhookEndpoint',
      'Change its URL, events, description or text opt-in; enable or disable it',
      { status: '200', schema: WebhookEndpointView, description: 'Endpoint changed' },
      { params: endpointPath, body: WebhookEndpointUpdateRequest, statuses: [404, 504] },
    ),
    delete: op(
      'deleteWebhookEndpoint',
      'Delete an endpoint with its deliveries and their log',
      { status: '200', schema: WebhookEndpointDeleted, description: 'Endpoint deleted' },
      { params: endpointPath, statuses: [404, 504] },
    ),
  },
  '/api/v1/control/webhook-endpoints/{id}/rotate-secret': {
    post: op(
      'rotateWebhookSecret',
      'A new signing secret, shown only here; the previous one also signs for 24 hours',
      { status: '200', schema: WebhookSecretRotated, description: 'Secret rotated' },
      { params: endpointPath, statuses: [404, 504] },
    ),
  },
  '/api/v1/control/webhook-endpoints/{id}/deliveries': {
    get: op(
      'listWebhookDeliveries',
      "The endpoint's delivery log, newest first: each delivery's status and attempts",
      { status: '200', schema: WebhookDeliveryList, description: 'Deliveries' },
      { params: endpointPath, query: WebhookDeliveryQuery, statuses: [404, 504] },
    ),
  },
  '/api/v1/control/webhook-endpoints/{id}/deliveries/{delivery_id}/redeliver': {
    post: op(
      'redeliverWebhook',
      'Send a delivery again with a fresh retry schedule (412 while the endpoint is disabled)',
      { status: '202', schema: WebhookDeliveryView, description: 'Queued again' },
      { params: deliveryPath, statuses: [404, 412, 504] },
    ),
  },
};
