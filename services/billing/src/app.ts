import {
  checkServiceHealth,
  connectBus,
  createService,
  type NatsConnection,
  startOutboxPublisher,
  streamSettingsOf,
} from '@tm/bus';
import { Streams } from '@tm/contracts';
import { type Logger, storageOutage } from '@tm/kit';
import type { BillingConfig } from './config.js';
import { closePrisma, getSql, initPrisma, pingDatabase, schemaVersion } from './data-access/prisma-client.js';
import { createPriceList } from './domain/price-list.js';
import { serveBillingEndpoints } from './entry-points/nats/billing-endpoints.js';
import { startUsageConsumer } from './entry-points/nats/usage-consumer.js';

export interface BillingService {
  nc: NatsConnection;
  /** Publish every pending outbox row (charge.voided) now (tests). */
  flushOutbox: () => Promise<void>;
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
  // charge.voided: committed with the void to billing's outbox, relayed into BILLING_EVENTS.
  const relay = startOutboxPublisher(nc, {
    name: 'billing_events',
    sql: getSql,
    intervalMs: config.OUTBOX_RELAY_INTERVAL_MS,
    logger,
    ensure: { streams: [Streams.billingEvents], settings: streamSettingsOf(config) },
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
  serveBillingEndpoints(service, { pricingVersion: config.PRICING_VERSION, onCommitted: relay.nudge });
  logger.info('billing service ready');
  return {
    nc,
    flushOutbox: relay.flush,
    stop: async () => {
      await service.stop(config.DRAIN_TIMEOUT_MS);
      await Promise.all([consumer.stop(), relay.stop()]);
      await nc.drain();
      await closePrisma();
    },
  };
}
