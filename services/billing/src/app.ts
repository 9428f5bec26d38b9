import {
  checkServiceHealth,
  connectBus,
  createService,
  type NatsConnection,
  streamSettingsOf,
} from '@tm/bus';
import { type Logger, storageOutage } from '@tm/kit';
import type { BillingConfig } from './config.js';
import { closePrisma, initPrisma, pingDatabase, schemaVersion } from './data-access/prisma-client.js';
import { createPriceList } from './domain/price-list.js';
import { serveBillingEndpoints } from './entry-points/nats/billing-endpoints.js';
import { startUsageConsumer } from './entry-points/nats/usage-consumer.js';

export interface BillingService {
  nc: NatsConnection;
  /** Stop answering, finish the usage batch in hand, close the pool. */
  stop: () => Promise<void>;
}

export async function startBillingService(
  config: BillingConfig,
  logger: Logger,
  version = '1.0.0',
): Promise<BillingService> {
  initPrisma(config.BILLING_DATABASE_URL, config.BILLING_DB_POOL_SIZE);
  const nc = await connectBus({
    servers: config.NATS_URL,
    name: 'billing',
    logger,
    password: config.BILLING_NATS_PASSWORD,
  });
  const consumer = startUsageConsumer(nc, {
    prices: createPriceList(),
    batchSize: config.USAGE_BATCH_SIZE,
    streamSettings: streamSettingsOf(config),
    logger,
  });
  const service = createService(
    nc,
    {
      name: 'billing',
      version,
      health: () => checkServiceHealth({ database: pingDatabase, schemaVersion, consumers: [consumer] }),
      mapError: storageOutage('Billing storage'),
    },
    logger,
  );
  serveBillingEndpoints(service, { pricingVersion: config.PRICING_VERSION });
  logger.info('billing service ready');
  return {
    nc,
    stop: async () => {
      await service.stop(config.DRAIN_TIMEOUT_MS);
      await consumer.stop();
      await nc.drain();
      await closePrisma();
    },
  };
}
