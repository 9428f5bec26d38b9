import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectBus, type NatsConnection, streamSettingsOf } from '@tm/bus';
import type { Logger } from '@tm/kit';
import type { MemoryClient } from './clients/memory-client.js';
import { createRequestRecorder, type RequestRecorder } from './clients/request-recorder.js';
import { PING_TIMEOUT_MS } from './clients/service-client.js';
import { createServiceClients } from './clients/service-clients.js';
import type { GatewayConfig } from './config.js';
import { closePrisma, getSql, initPrisma, pingDatabase, schemaVersion } from './data-access/prisma-client.js';
import { deriveGatewaySecrets } from './domain/identity/gateway-secrets.js';
import { DEFAULT_HASHING_SLOTS } from './domain/identity/hashing-slots.js';
import { createKeyUsage } from './domain/identity/key-usage.js';
import { limitPasswordHashing } from './domain/identity/password-hash.js';
import { createVerifiedKeyCache } from './domain/identity/verified-key-cache.js';
import { createPrepaidRequests } from './domain/mcp/prepaid-requests.js';
import { createRateLimits } from './domain/operations/rate-limits.js';
import { smokeTestPolicyOf } from './domain/operations/run-smoke-test.js';
import { trackInFlightRequests } from './entry-points/http/in-flight-requests.js';
import { defaultConsoleDir } from './entry-points/http/routes/console-routes.js';
import { createHttpApp, startServer, stopServer } from './entry-points/http/server.js';
import { listenForIdentityChanges } from './entry-points/nats/identity-changes.js';

export interface Gateway {
  server: Server;
  url: string;
  nc: NatsConnection;
  memory: MemoryClient;
  requestRecorder: RequestRecorder;
  stop: () => Promise<void>;
}

export async function startGateway(config: GatewayConfig, logger: Logger): Promise<Gateway> {
  initPrisma(config.GATEWAY_DATABASE_URL, config.GATEWAY_DB_POOL_SIZE);
  const nc = await connectBus({
    servers: config.NATS_URL,
    name: 'gateway',
    logger,
    password: config.GATEWAY_NATS_PASSWORD,
  });
  const services = createServiceClients(nc, {
    timeoutMs: config.GATEWAY_REQUEST_TIMEOUT_MS,
    breakerResetMs: config.BREAKER_RESET_MS,
    importSealTimeoutMs: config.IMPORT_PARSE_TIMEOUT_MS,
    logger,
  });
  const { memory, billing, telemetry, templates, webhooks } = services;
  const keys = createVerifiedKeyCache({
    maxEntries: config.KEY_CACHE_SIZE,
    ttlMs: config.KEY_CACHE_TTL_MS,
  });
  listenForIdentityChanges(nc, keys, logger);
  const secrets = deriveGatewaySecrets(config.GATEWAY_SECRET_KEY);
  if (!secrets.persistent) {
    logger.warn('GATEWAY_SECRET_KEY is not set: sessions last only as long as this process');
  }
  limitPasswordHashing({
    ...DEFAULT_HASHING_SLOTS,
    concurrency: config.PASSWORD_HASH_CONCURRENCY,
    maxWaiting: config.PASSWORD_HASH_QUEUE,
    perSource: config.PASSWORD_HASH_PER_ADDRESS,
    maxWaitMs: config.PASSWORD_HASH_MAX_WAIT_MS,
  });
  const rateLimits = createRateLimits(
    getSql(),
    {
      windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
      perKey: config.RATE_LIMIT_PER_KEY,
      perTenant: config.RATE_LIMIT_PER_TENANT,
      textCharsPerTenant: config.RATE_LIMIT_TEXT_CHARS_PER_TENANT,
      textWindowSeconds: config.RATE_LIMIT_TEXT_WINDOW_SECONDS,
      loginAttemptsPer15Minutes: config.LOGIN_ATTEMPTS_PER_15_MINUTES,
      loginAttemptsPerAddressPer15Minutes: config.LOGIN_ATTEMPTS_PER_ADDRESS_PER_15_MINUTES,
      refusalMemoryMs: config.RATE_LIMIT_REFUSAL_MEMORY_MS,
      refusalPauseMs: config.RATE_LIMIT_REFUSAL_PAUSE_MS,
    },
    logger,
  );
  const requestRecorder = createRequestRecorder(nc, logger, {
    maxBuffered: config.REQUEST_RECORD_BUFFER,
    streamSettings: streamSettingsOf(config),
  });
  const inFlight = trackInFlightRequests();
  const app = createHttpApp({
    inFlight,
    // Half the deadline to start a batch's items; the item in flight then and the answer's way back
    // fit in the other half, so a batch is answered, never a 504 (decisions/fairness.md, "Admission by cost").
    writeBatchBudgetMs: Math.floor(config.GATEWAY_REQUEST_TIMEOUT_MS / 2),
    consoleDir: config.CONSOLE_DIR ?? defaultConsoleDir(),
    trustProxy: config.GATEWAY_TRUST_PROXY,
    mcp: { allowedOrigins: config.MCP_ALLOWED_ORIGINS, publicUrl: config.GATEWAY_PUBLIC_URL },
    memory,
    telemetry,
    templates,
    imports: { maxBytes: config.IMPORT_MAX_BYTES, stallMs: config.IMPORT_UPLOAD_TIMEOUT_MS },
    bodies: {
      idleMs: config.GATEWAY_BODY_IDLE_TIMEOUT_MS,
      minBytesPerSecond: config.GATEWAY_BODY_MIN_BYTES_PER_SECOND,
      maxMs: config.GATEWAY_HTTP_REQUEST_TIMEOUT_MS,
    },
    smokeTestPolicy: smokeTestPolicyOf(config),
    requestRecorder,
    auth: {
      keys,
      keyUsage: createKeyUsage(logger),
      sessionSigningKey: secrets.sessionSigningKey,
      rateLimits,
      prepaid: createPrepaidRequests(),
    },
    control: {
      nc,
      sessions: { signingKey: secrets.sessionSigningKey, ttlMinutes: config.SESSION_TTL_MINUTES },
      storageSecretKey: secrets.storageSecretKey,
      rateLimits,
      billing,
      webhooks,
    },
    logger,
    deployment: { version: config.DEPLOYMENT_VERSION, environment: config.DEPLOYMENT_ENVIRONMENT },
    // Required: what a write needs (decisions/reliability.md, "Health"). Billing is not: a write's usage
    // waits in memory's outbox and JetStream, and is charged when billing is back.
    probes: {
      gateway_store: {
        required: true,
        check: async () => {
          const database = await pingDatabase();
          const schema = schemaVersion(); // what is known now: never waits on the database
          return {
            available: database.available,
            dependencies: { database },
            ...(schema ? { schema_version: schema } : {}),
          };
        },
      },
      memory: { required: true, check: () => memory.ping(PING_TIMEOUT_MS) },
      billing: { required: false, check: () => billing.ping(PING_TIMEOUT_MS) },
      telemetry: { required: false, check: () => telemetry.ping(PING_TIMEOUT_MS) },
      template: { required: false, check: () => templates.ping(PING_TIMEOUT_MS) },
      // Not required: events wait in JetStream and deliveries in its outbox until it is back.
      webhooks: { required: false, check: () => webhooks.ping(PING_TIMEOUT_MS) },
    },
  });
  const server = await startServer(
    app,
    config.GATEWAY_PORT,
    config.GATEWAY_HOST,
    {
      headersTimeoutMs: config.GATEWAY_HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: config.GATEWAY_HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: config.GATEWAY_HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: config.GATEWAY_MAX_CONNECTIONS,
      maxConnectionsPerAddress: config.GATEWAY_MAX_CONNECTIONS_PER_ADDRESS,
    },
    logger,
  );
  const { port } = server.address() as AddressInfo;
  logger.info({ port }, 'gateway listening');

  return {
    server,
    url: `http://127.0.0.1:${port}`,
    nc,
    memory,
    requestRecorder,
    stop: async () => {
      await stopServer(server, inFlight, config.DRAIN_TIMEOUT_MS, logger);
      await requestRecorder.stop();
      rateLimits.stop();
      services.shutdown();
      await nc.drain();
      await closePrisma();
    },
  };
}
