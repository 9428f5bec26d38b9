import type { NatsConnection } from '@tm/bus';
import {
  Subjects,
  WebhookDeliveryList,
  WebhookDeliveryListMessage,
  WebhookDeliveryView,
  WebhookEndpointCreated,
  WebhookEndpointCreateMessage,
  WebhookEndpointDeleted,
  WebhookEndpointList,
  WebhookEndpointListMessage,
  WebhookEndpointRefMessage,
  WebhookEndpointUpdateMessage,
  WebhookEndpointView,
  WebhookRedeliverMessage,
  WebhookSecretRotated,
} from '@tm/contracts';
import { createServiceClient, endpoint, type ServiceClientOptions } from './service-client.js';

const s = Subjects.webhooks;

/** The webhooks service's endpoints: a tenant's endpoints and their delivery log. */
const WEBHOOKS_SERVICE = {
  service: 'webhooks',
  ping: s.ping,
  endpoints: {
    createEndpoint: endpoint(s.createEndpoint, WebhookEndpointCreateMessage, WebhookEndpointCreated),
    listEndpoints: endpoint(s.listEndpoints, WebhookEndpointListMessage, WebhookEndpointList),
    getEndpoint: endpoint(s.getEndpoint, WebhookEndpointRefMessage, WebhookEndpointView),
    updateEndpoint: endpoint(s.updateEndpoint, WebhookEndpointUpdateMessage, WebhookEndpointView),
    deleteEndpoint: endpoint(s.deleteEndpoint, WebhookEndpointRefMessage, WebhookEndpointDeleted),
    rotateSecret: endpoint(s.rotateSecret, WebhookEndpointRefMessage, WebhookSecretRotated),
    listDeliveries: endpoint(s.listDeliveries, WebhookDeliveryListMessage, WebhookDeliveryList),
    redeliver: endpoint(s.redeliver, WebhookRedeliverMessage, WebhookDeliveryView),
  },
};

/** Typed, breaker-wrapped calls to the webhooks service over NATS request/reply. */
export const createWebhooksClient = (nc: NatsConnection, options: ServiceClientOptions) =>
  createServiceClient(nc, WEBHOOKS_SERVICE, options);
export type WebhooksClient = ReturnType<typeof createWebhooksClient>;
