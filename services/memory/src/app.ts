import {
  checkServiceHealth,
  connectBus,
  createService,
  ensureStream,
  type NatsConnection,
  startOutboxPublisher,
  streamSettingsOf,
} from '@tm/bus';
import { Streams } from '@tm/contracts';
import { type Logger, storageOutage } from '@tm/kit';
import type { MemoryConfig } from './config.js';
import {
  closePrisma,
  getPool,
  getSql,
  initPrisma,
  pingDatabase,
  schemaVersion,
} from './data-access/prisma-client.js';
import { createRecallAdmission } from './domain/recall-admission.js';
import { startDeletionWorker } from './entry-points/jobs/deletion-poller.js';
import { startExpiryPruning } from './entry-points/jobs/expiry-pruning.js';
import { startReindexWorker } from './entry-points/jobs/reindex-poller.js';
import { serveMemoryEndpoints } from './entry-points/nats/memory-endpoints.js';

export interface MemoryService {
  nc: NatsConnection;
  /** Publish every pending outbox row now (tests, shutdown). */
  flushOutbox: () => Promise<void>;
  /** Stop taking requests, finish in-flight ones, stop the relay, close the pool. */
  stop: () => Promise<void>;
}

export async function startMemoryService(
  config: MemoryConfig,
  logger: Logger,
  version = '1.0.0',
): Promise<MemoryService> {
  initPrisma(config.MEMORY_DATABASE_URL, config.MEMORY_DB_POOL_SIZE);
  const nc = await connectBus({
    servers: config.NATS_URL,
    name: 'memory',
    logger,
    password: config.MEMORY_NATS_PASSWORD,
  });
  await ensureStream(nc, Streams.memoryUsage, streamSettingsOf(config));
  await ensureStream(nc, Streams.memoryEvents, streamSettingsOf(config));

  const relay = startOutboxPublisher(nc, {
    name: 'memory_usage',
    sql: getSql,
    intervalMs: config.OUTBOX_RELAY_INTERVAL_MS,
    logger,
  });
  // Started before the endpoints: it knows which namespaces refuse writes before the first write comes.
  const deletions = startDeletionWorker({
    pool: getPool,
    sizes: { records: config.MEMORY_DELETE_BATCH_SIZE, postings: config.MEMORY_DELETE_BATCH_SIZE * 25 },
    intervalMs: config.MEMORY_DELETE_INTERVAL_MS,
    logger,
  });
  const reindex = startReindexWorker({
    pool: getPool,
    sizes: { records: config.REINDEX_BATCH_SIZE, postings: config.REINDEX_BATCH_SIZE * 25 },
    pollMs: config.REINDEX_POLL_MS,
    logger,
  });
  const service = createService(
    nc,
    {
      name: 'memory',
      version,
      health: async () => {
        const report = await checkServiceHealth({ database: pingDatabase, schemaVersion });
        const progress = reindex.progress();
        return progress ? { ...report, reindex: progress } : report;
      },
      mapError: storageOutage('Memory storage'),
    },
    logger,
  );
  serveMemoryEndpoints(service, {
    pricingVersion: config.PRICING_VERSION,
    onCommitted: relay.nudge,
    deletions,
    deleteWaitMs: config.MEMORY_DELETE_WAIT_MS,
    recalls: createRecallAdmission({
      concurrency: config.MEMORY_RECALL_CONCURRENCY,
      perTenant: config.MEMORY_RECALL_TENANT_CONCURRENCY,
      perTenantWaiting: config.MEMORY_RECALL_TENANT_QUEUE,
      maxWaiting: config.MEMORY_RECALL_QUEUE,
      maxWaitMs: config.MEMORY_RECALL_MAX_WAIT_MS,
    }),
    logger,
  });
  const pruning = startExpiryPruning(
    {
      intervalMs: config.IDEMPOTENCY_PRUNE_INTERVAL_MS,
      idempotencyHours: config.IDEMPOTENCY_RETENTION_HOURS,
      receiptHours: config.MEMORY_DELETE_RECEIPT_RETENTION_HOURS,
    },
    logger,
  );
  logger.info('memory service ready');

  return {
    nc,
    flushOutbox: relay.flush,
    stop: async () => {
      await service.stop(config.DRAIN_TIMEOUT_MS);
      // The batch in flight commits; the next start (here or on another instance) goes on from it.
      await Promise.all([relay.stop(), pruning.stop(), deletions.stop(), reindex.stop()]);
      await nc.drain();
      await closePrisma();
    },
  };
}
