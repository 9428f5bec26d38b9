import type { NatsConnection } from '@tm/bus';
import type { BillingClient } from '../../../../clients/billing-client.js';
import type { WebhooksClient } from '../../../../clients/webhooks-client.js';
import type { SessionSettings } from '../../../../domain/control/login.js';
import type { RateLimits } from '../../../../domain/operations/rate-limits.js';

/** What the control-plane routes are given; its own file so each child route imports it without a loop. */
export interface ControlDeps {
  nc: NatsConnection;
  sessions: SessionSettings;
  storageSecretKey: Buffer;
  rateLimits: RateLimits;
  billing: BillingClient;
  webhooks: WebhooksClient;
}
