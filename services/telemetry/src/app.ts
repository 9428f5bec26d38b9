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
import type { TelemetryConfig } from './config.js';
import { closePrisma, getSql, initPrisma, pingDatabase, schemaVersion } from './data-access/prisma-client.js';
import { anomalyPolicy } from './domain/thresholds.js';
import { startAnomalyWatch } from './entry-points/jobs/anomaly-watch.js';
import { startRetention } from './entry-points/jobs/history-pruning.js';
import {
  startDeadLetterConsumer,
  startRequestRecordConsumer,
} from './entry-points/nats/request-record-consumer.js';
import { serveTelemetryEndpoints } from './entry-points/nats/telemetry-endpoints.js';

export interface TelemetryService {
  nc: NatsConnection;
  /** Publish every pending outbox row (anomaly.raised) now (tests). */
  flushOutbox: () => Promise<void>;
  /** Stop answering, finish the batches in hand, close the pool. */
  stop: () => Promise<void>;
}

export async function startTelemetryService(
  config: TelemetryConfig,
  logger: Logger,
  version = '1.0.0',
): Promise<TelemetryService> {
  initPrisma(config.TELEMETRY_DATABASE_URL, config.TELEMETRY_DB_POOL_SIZE);
  const nc = await connectBus({
    servers: config.NATS_URL,
    name: 'telemetry',
    logger,
    password: config.TELEMETRY_NATS_PASSWORD,
  });
  const streamSettings = streamSettingsOf(config);
  const records = startRequestRecordConsumer(nc, {
    batchSize: config.RECORD_BATCH_SIZE,
    streamSettings,
    logger,
  });
  const deadLetters = startDeadLetterConsumer(nc, { streamSettings, logger });
  const retention = startRetention(config.TELEMETRY_RETENTION_DAYS, logger);
  // anomaly.raised: the watch commits each raise with its event to telemetry's outbox, relayed
  // into TELEMETRY_EVENTS.
  const relay = startOutboxPublisher(nc, {
    name: 'telemetry_events',
    sql: getSql,
    intervalMs: config.OUTBOX_RELAY_INTERVAL_MS,
    logger,
    ensure: { streams: [Streams.telemetryEvents], settings: streamSettings },
  });
  const policy = anomalyPolicy(config);
  const watch = startAnomalyWatch(
    {
      policy,
      windowMinutes: config.ANOMALY_WATCH_WINDOW_MINUTES,
      exactPercentilesUpTo: config.TELEMETRY_EXACT_PERCENTILES_UP_TO,
      intervalMs: config.ANOMALY_WATCH_INTERVAL_MS,
      onCommitted: relay.nudge,
    },
    logger,
  );
  const service = createService(
    nc,
    {
      name: 'telemetry',
      version,
      health: () =>
        checkServiceHealth({ database: pingDatabase, schemaVersion, consumers: [records, deadLetters] }),
      mapError: storageOutage('Telemetry storage'),
    },
    logger,
  );
  serveTelemetryEndpoints(service, {
    policy,
    exactPercentilesUpTo: config.TELEMETRY_EXACT_PERCENTILES_UP_TO,
  });
  logger.info('telemetry service ready');
  return {
    nc,
    flushOutbox: relay.flush,
    stop: async () => {
      await service.stop(config.DRAIN_TIMEOUT_MS);
      await Promise.all([records.stop(), deadLetters.stop(), retention.stop(), watch.stop()]);
      await relay.stop();
      await nc.drain();
      await closePrisma();
    },
  };
}
