import type { NatsConnection } from '@tm/bus';
import type { Logger } from '@tm/kit';
import { createBillingClient } from './billing-client.js';
import { createMemoryClient } from './memory-client.js';
import { createTelemetryClient } from './telemetry-client.js';
import { createTemplateClient } from './template-client.js';
import { createWebhooksClient } from './webhooks-client.js';

export interface ServiceClientSettings {
  /** Deadline of one call to any service (GATEWAY_REQUEST_TIMEOUT_MS). */
  timeoutMs: number;
  /** How long an open breaker refuses calls before one probes again (BREAKER_RESET_MS). */
  breakerResetMs: number;
  /** The template service's import calls, which parse a whole file (IMPORT_PARSE_TIMEOUT_MS). */
  importSealTimeoutMs: number;
  logger: Logger;
}

/**
 * The five services the gateway calls, each behind its own breaker and all with the same deadline and
 * breaker reset; `shutdown` stops every breaker (its timers and its recovery probing).
 */
export function createServiceClients(nc: NatsConnection, settings: ServiceClientSettings) {
  const { importSealTimeoutMs, ...options } = settings;
  const clients = {
    memory: createMemoryClient(nc, options),
    billing: createBillingClient(nc, options),
    telemetry: createTelemetryClient(nc, options),
    templates: createTemplateClient(nc, { ...options, importSealTimeoutMs }),
    webhooks: createWebhooksClient(nc, options),
  };
  return {
    ...clients,
    shutdown: () => {
      for (const client of Object.values(clients)) client.breaker.shutdown();
    },
  };
}
