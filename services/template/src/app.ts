import {
  checkServiceHealth,
  connectBus,
  createService,
  type NatsConnection,
  startOutboxPublisher,
  streamSettingsOf,
} from '@tm/bus';
import { Streams } from '@tm/contracts';
import { type Logger, startPeriodicTask, storageOutage } from '@tm/kit';
import { createWritePriceReader } from './clients/billing-prices.js';
import { createHubClient } from './clients/hub/hub-client.js';
import { createMemoryWriter } from './clients/memory-writer.js';
import type { TemplateConfig } from './config.js';
import { closePrisma, getSql, initPrisma, pingDatabase, schemaVersion } from './data-access/prisma-client.js';
import { expireUnstartedImports } from './domain/imports/expire-unstarted-imports.js';
import { createHubTokenBox } from './domain/imports/hub/hub-token-box.js';
import { createReadSlots } from './domain/imports/parsing/read-slots.js';
import { startImportWorker } from './entry-points/jobs/import-worker.js';
import { serveImportEndpoints } from './entry-points/nats/import-endpoints.js';
import { serveRestoreEndpoints } from './entry-points/nats/restore-endpoints.js';
import { serveTemplateEndpoints } from './entry-points/nats/template-endpoints.js';

export interface TemplateService {
  nc: NatsConnection;
  /** Publish every pending outbox row (import.completed / import.failed) now (tests). */
  flushOutbox: () => Promise<void>;
  /** Stop answering, finish the requests in hand, close the pool. */
  stop: () => Promise<void>;
}

export async function startTemplateService(
  config: TemplateConfig,
  logger: Logger,
  version = '1.0.0',
): Promise<TemplateService> {
  initPrisma(config.TEMPLATE_DATABASE_URL, config.TEMPLATE_DB_POOL_SIZE);
  const nc = await connectBus({
    servers: config.NATS_URL,
    name: 'template',
    logger,
    password: config.TEMPLATE_NATS_PASSWORD,
  });
  const memory = createMemoryWriter(nc, {
    timeoutMs: config.MEMORY_WRITE_TIMEOUT_MS,
    breakerResetMs: config.BREAKER_RESET_MS,
    logger,
  });
  const hub = createHubClient({
    hubBaseUrl: config.HUB_BASE_URL,
    viewerBaseUrl: config.HUB_DATASETS_SERVER_URL,
    timeoutMs: config.HUB_TIMEOUT_MS,
    retries: config.HUB_RETRIES,
    retryBaseMs: config.HUB_RETRY_BASE_MS,
  });
  const tokens = createHubTokenBox(config.IMPORT_SECRET_KEY);
  if (!tokens.persistent) {
    logger.warn(
      'IMPORT_SECRET_KEY is not set: a dataset import that needs its hub token cannot resume after a restart',
    );
  }
  // import.completed / import.failed: committed with the job's end to the template outbox,
  // relayed into TEMPLATE_EVENTS.
  const relay = startOutboxPublisher(nc, {
    name: 'template_events',
    sql: getSql,
    intervalMs: config.OUTBOX_RELAY_INTERVAL_MS,
    logger,
    ensure: { streams: [Streams.templateEvents], settings: streamSettingsOf(config) },
  });
  // resumes every job left in `processing` by a previous run
  const importWorker = startImportWorker(
    {
      onCommitted: relay.nudge,
      writeMemory: memory.write,
      pollMs: config.IMPORT_POLL_MS,
      batchSize: config.IMPORT_BATCH_SIZE,
      concurrency: config.IMPORT_CONCURRENCY,
      datasets: { hub, tokens, pageRows: config.HUB_PAGE_ROWS },
    },
    logger,
  );
  const importExpiry = startPeriodicTask(
    'import expiry',
    config.IMPORT_EXPIRY_SWEEP_MS,
    async () => {
      const expired = await expireUnstartedImports({ ttlMs: config.IMPORT_UNSTARTED_TTL_MS });
      if (expired > 0) logger.info({ expired }, 'unstarted imports expired');
    },
    logger,
  );
  const service = createService(
    nc,
    {
      name: 'template',
      version,
      health: () => checkServiceHealth({ database: pingDatabase, schemaVersion }),
      mapError: storageOutage('Template storage'),
    },
    logger,
  );
  serveTemplateEndpoints(service, {
    writeMemory: memory.write,
    namespaceDeletion: {
      batchSize: config.TEMPLATE_DELETE_BATCH_SIZE,
      waitMs: config.TEMPLATE_DELETE_WAIT_MS,
      logger,
    },
  });
  serveImportEndpoints(service, {
    price: createWritePriceReader(nc, { timeoutMs: config.BILLING_PRICE_TIMEOUT_MS }),
    nudge: importWorker.nudge,
    limits: {
      maxUncompressedBytes: config.IMPORT_MAX_UNCOMPRESSED_BYTES,
      maxCellChars: config.IMPORT_MAX_CELL_CHARS,
      maxRows: config.IMPORT_MAX_ROWS,
    },
    readSlots: createReadSlots(config.IMPORT_MAX_CONCURRENT_READS),
    maxInFlightPerTenant: config.IMPORT_MAX_CONCURRENT_PER_TENANT,
    // the hub's metadata calls end well inside the gateway's import deadline (60 s)
    datasets: {
      hub,
      tokens,
      probeBudgetMs: config.HUB_PROBE_BUDGET_MS,
      maxInFlightPerTenant: config.IMPORT_MAX_CONCURRENT_PER_TENANT,
    },
  });
  serveRestoreEndpoints(service, {
    nudge: importWorker.nudge,
    maxInFlightPerTenant: config.IMPORT_MAX_CONCURRENT_PER_TENANT,
  });
  logger.info('template service ready');
  return {
    nc,
    flushOutbox: relay.flush,
    stop: async () => {
      await service.stop(config.DRAIN_TIMEOUT_MS);
      await importWorker.stop();
      memory.stop();
      await importExpiry.stop();
      await relay.stop();
      await nc.drain();
      await closePrisma();
    },
  };
}
