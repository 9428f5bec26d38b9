import type { WebhookEndpointView, WebhookEventType } from '@tm/contracts';
import type { WebhookEndpoint } from '../../data-access/generated/client.js';

/** An endpoint as the API shows it: never its secret. */
export const endpointView = (row: WebhookEndpoint): WebhookEndpointView => ({
  id: row.id,
  url: row.url,
  description: row.description,
  events: row.events as WebhookEventType[],
  include_text: row.includeText,
  enabled: row.enabled,
  disabled_reason: row.disabledReason,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});
