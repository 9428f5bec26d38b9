import type { Service } from '@tm/bus';
import {
  Subjects,
  WebhookDeliveryListMessage,
  WebhookEndpointCreateMessage,
  WebhookEndpointListMessage,
  WebhookEndpointRefMessage,
  WebhookEndpointUpdateMessage,
  WebhookRedeliverMessage,
} from '@tm/contracts';
import { listEndpointDeliveries, redeliver } from '../../domain/deliveries/delivery-log.js';
import {
  createEndpoint,
  deleteEndpoint,
  type EndpointSettings,
  getEndpoint,
  listEndpoints,
  rotateSecret,
  updateEndpoint,
} from '../../domain/endpoints/manage-endpoints.js';

const s = Subjects.webhooks;

/** The webhooks service's request/reply endpoints: the control plane's routes, tenant given by the gateway. */
export function serveWebhooksEndpoints(
  service: Service,
  settings: EndpointSettings & { wake: () => void },
): void {
  service.endpoint({
    subject: s.createEndpoint,
    input: WebhookEndpointCreateMessage,
    handler: (m) => createEndpoint(m, settings),
  });
  service.endpoint({
    subject: s.listEndpoints,
    input: WebhookEndpointListMessage,
    handler: (m) => listEndpoints(m.tenant_id),
  });
  service.endpoint({
    subject: s.getEndpoint,
    input: WebhookEndpointRefMessage,
    handler: (m) => getEndpoint(m),
  });
  service.endpoint({
    subject: s.updateEndpoint,
    input: WebhookEndpointUpdateMessage,
    handler: async (m) => {
      const view = await updateEndpoint(m, settings);
      if (m.body.enabled) settings.wake(); // its pending deliveries are due again
      return view;
    },
  });
  service.endpoint({
    subject: s.deleteEndpoint,
    input: WebhookEndpointRefMessage,
    handler: (m) => deleteEndpoint(m),
  });
  service.endpoint({
    subject: s.rotateSecret,
    input: WebhookEndpointRefMessage,
    handler: (m) => rotateSecret(m, settings),
  });
  service.endpoint({
    subject: s.listDeliveries,
    input: WebhookDeliveryListMessage,
    handler: (m) => listEndpointDeliveries(m),
  });
  service.endpoint({
    subject: s.redeliver,
    input: WebhookRedeliverMessage,
    handler: async (m) => {
      const view = await redeliver(m);
      settings.wake();
      return view;
    },
  });
}
