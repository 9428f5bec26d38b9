import {
  checkServiceHealth,
  connectBus,
  createService,
  type NatsConnection,
  requestReply,
  streamSettingsOf,
} from '@tm/bus';
import { MemoryText, MemoryTextMessage, Subjects } from '@tm/contracts';
import { type Logger, storageOutage } from '@tm/kit';
import type { WebhooksConfig } from './config.js';
import { closePrisma, initPrisma, pingDatabase, schemaVersion } from './data-access/prisma-client.js';
import { sealingKey } from './domain/endpoints/signing-secret.js';
import { startDeliveryLogPruning } from './entry-points/jobs/delivery-log-pruning.js';
import { startDeliveryPoller } from './entry-points/jobs/delivery-poller.js';
import { startEventConsumer } from './entry-points/nats/event-consumer.js';
import { eventSources } from './entry-points/nats/event-sources.js';
import { serveWebhooksEndpoints } from './entry-points/nats/webhooks-endpoints.js';

/** One read of a record's text for a delivery; past it the attempt fails and is retried. */
const TEXT_TIMEOUT_MS = 3_000;

export interface WebhooksService {
  nc: NatsConnection;
  /** Stop answering and consuming, let the attempts in flight be recorded, close the pool. */
  stop: () => Promise<void>;
}

export async function startWebhooksService(
  config: WebhooksConfig,
  logger: Logger,
  version = '1.0.0',
): Promise<WebhooksService> {
  initPrisma(config.WEBHOOKS_DATABASE_URL, config.WEBHOOKS_DB_POOL_SIZE);
  const key = sealingKey(config.WEBHOOKS_SECRET_KEY);
  const nc = await connectBus({
    servers: config.NATS_URL,
    name: 'webhooks',
    logger,
    password: config.WEBHOOKS_NATS_PASSWORD,
  });
  const poller = startDeliveryPoller({
    readText: async (tenantId, memoryId) => {
      const reply = await requestReply(
        nc,
        Subjects.memory.getText,
        { input: MemoryTextMessage, output: MemoryText },
        { tenant_id: tenantId, memory_id: memoryId },
        { timeoutMs: TEXT_TIMEOUT_MS, service: 'memory' },
      );
      return reply.text;
    },
    sealingKey: key,
    retrySchedule: config.WEBHOOKS_RETRY_SCHEDULE_MS,
    timeoutMs: config.WEBHOOKS_ATTEMPT_TIMEOUT_MS,
    allowLoopback: config.WEBHOOKS_ALLOW_LOOPBACK,
    concurrency: config.WEBHOOKS_CONCURRENCY,
    tenantConcurrency: config.WEBHOOKS_TENANT_CONCURRENCY,
    endpointConcurrency: config.WEBHOOKS_ENDPOINT_CONCURRENCY,
    breakerResetMs: config.WEBHOOKS_BREAKER_RESET_MS,
    breakerVolume: config.WEBHOOKS_BREAKER_VOLUME,
    intervalMs: config.WEBHOOKS_POLL_INTERVAL_MS,
    logger,
  });
  const consumerDeps = {
    batchSize: config.WEBHOOKS_FETCH_BATCH_SIZE,
    streamSettings: streamSettingsOf(config),
    logger,
    queued: poller.wake,
  };
  // One durable per owner's stream (entry-points/nats/event-sources.ts), each in health with its lag.
  const consumers = eventSources.map((source) => startEventConsumer(nc, source, consumerDeps));
  const service = createService(
    nc,
    {
      name: 'webhooks',
      version,
      health: () => checkServiceHealth({ database: pingDatabase, schemaVersion, consumers }),
      mapError: storageOutage('Webhooks storage'),
    },
    logger,
  );
  serveWebhooksEndpoints(service, {
    sealingKey: key,
    maxEndpoints: config.WEBHOOKS_MAX_ENDPOINTS,
    allowLoopback: config.WEBHOOKS_ALLOW_LOOPBACK,
    wake: poller.wake,
  });
  const pruning = startDeliveryLogPruning(config.WEBHOOKS_DELIVERY_RETENTION_DAYS, logger);
  logger.info('webhooks service ready');
  return {
    nc,
    stop: async () => {
      await service.stop(config.DRAIN_TIMEOUT_MS);
      await Promise.all(consumers.map((c) => c.stop()));
      await poller.stop();
      await pruning.stop();
      await nc.drain();
      await closePrisma();
    },
  };
}
