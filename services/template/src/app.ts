import { connectBus, type NatsConnection } from '@tm/bus';
import type { Logger } from '@tm/kit';
import { createMemoryWriter } from './clients/memory-writer.js';
import type { TemplateConfig } from './config.js';
import { closePrisma, initPrisma } from './data-access/prisma-client.js';
import { serveTemplateEndpoints } from './entry-points/nats/template-endpoints.js';

export interface TemplateService {
  nc: NatsConnection;
  /** Stop answering, finish the requests in hand, close the pool. */
  stop: () => Promise<void>;
}

export async function startTemplateService(
  config: TemplateConfig,
  logger: Logger,
  version = '1.0.0',
): Promise<TemplateService> {
  initPrisma(config.TEMPLATE_DATABASE_URL, config.TEMPLATE_DB_POOL_SIZE);
  const nc = await connectBus({ servers: config.NATS_URL, name: 'template', logger });
  const writeMemory = createMemoryWriter(nc, { timeoutMs: config.MEMORY_WRITE_TIMEOUT_MS });
  const subscriptions = serveTemplateEndpoints(nc, { writeMemory, version }, logger);
  logger.info('template service ready');
  return {
    nc,
    stop: async () => {
      await Promise.all(subscriptions.map((s) => s.drain()));
      await nc.drain();
      await closePrisma();
    },
  };
}
