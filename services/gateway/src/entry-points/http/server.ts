import { createServer, type Server } from 'node:http';
import { AppError, ErrorCode } from '@tm/contracts';
import type { Logger } from '@tm/kit';
import express from 'express';
import type { MemoryClient } from '../../clients/memory-client.js';
import type { RequestRecorder } from '../../clients/request-recorder.js';
import type { TelemetryClient } from '../../clients/telemetry-client.js';
import type { TemplateClient } from '../../clients/template-client.js';
import type { HealthProbes } from '../../domain/operations/check-health.js';
import type { SmokeTestPolicy } from '../../domain/operations/run-smoke-test.js';
import { answerClientError } from './answer-client-error.js';
import { capConnectionsPerAddress } from './connection-limits.js';
import { connectionsDropped, connectionsRefusedPerAddress } from './connection-metrics.js';
import { drainServer } from './drain-server.js';
import type { InFlightRequests } from './in-flight-requests.js';
import { accessLog } from './middleware/access-log.js';
import { answerShape } from './middleware/answer-shape.js';
import type { AuthDeps } from './middleware/authenticate.js';
import { type BodyDeadlines, boundRequestBodies } from './middleware/body-deadlines.js';
import type { McpAddress } from './middleware/check-origin.js';
import { refuseUndeclaredQuery } from './middleware/declared-query.js';
import { answerWithError, errorHandler, notFound } from './middleware/error-handler.js';
import { httpMetrics } from './middleware/http-metrics.js';
import { literalPathSegments } from './middleware/literal-path-segments.js';
import { recordRequests } from './middleware/record-requests.js';
import { requestContext } from './middleware/request-context.js';
import { securityHeaders } from './middleware/security-headers.js';
import { chatRoutes } from './routes/chat-routes.js';
import { consoleRoutes } from './routes/console-routes.js';
import type { ControlDeps } from './routes/control/control-deps.js';
import { controlRoutes } from './routes/control/control-routes.js';
import { importRoutes } from './routes/import-routes.js';
import { infrastructureRoutes } from './routes/infrastructure-routes.js';
import { liveness } from './routes/liveness-route.js';
import { mcpRoutes } from './routes/mcp-routes.js';
import { memoryRoutes } from './routes/memory-routes.js';
import { openApiRoutes } from './routes/openapi-routes.js';
import { restoreRoutes } from './routes/restore-routes.js';
import { templateMemoryRoutes } from './routes/template-memory-routes.js';
import { templateRoutes } from './routes/template-routes.js';

export interface HttpDeps {
  memory: MemoryClient;
  telemetry: TelemetryClient;
  templates: TemplateClient;
  /** Document upload bounds: file size and how long an upload may stall. */
  imports: { maxBytes: number; stallMs: number };
  /** How request bodies must arrive: the silence allowed between bytes, a minimum rate, a bound. */
  bodies: Omit<BodyDeadlines, 'upload'>;
  smokeTestPolicy: SmokeTestPolicy;
  auth: AuthDeps;
  requestRecorder: RequestRecorder;
  control: ControlDeps;
  probes: HealthProbes;
  deployment: { version: string; environment: string };
  /** The web console's built files, served at /console. */
  consoleDir: string;
  /** Proxies whose X-Forwarded-For names the client (GATEWAY_TRUST_PROXY); empty: none. */
  trustProxy: string[];
  /** The remote MCP endpoint: its public address and the browser origins allowed besides it. */
  mcp: McpAddress;
  /** Requests taken and not yet answered, for the drain on stop. */
  inFlight: InFlightRequests;
  /** How long a batch write may go on starting its items (write-memory-batch.ts). */
  writeBatchBudgetMs: number;
  logger: Logger;
}

export function createHttpApp(deps: HttpDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Answers are per-request state, never served from a cache: hashing each body for an ETag is waste.
  app.set('etag', false);
  // Only proxies named in the configuration are believed about the client's address (req.ip).
  app.set('trust proxy', deps.trustProxy.length > 0 ? deps.trustProxy : false);
  app.use(answerShape, requestContext, deps.inFlight.track, securityHeaders, literalPathSegments);
  app.use(boundRequestBodies({ ...deps.bodies, upload: deps.imports }, deps.logger));
  // Before the access log and the request records: an orchestrator asks every few seconds, and
  // those lines and records would say nothing but "still running" (decisions/reliability.md).
  app.get('/api/v1/infrastructure/health/live', liveness);
  // Static files: neither in the access log nor in a tenant's request history (they name no tenant).
  app.use('/console', consoleRoutes(deps.consoleDir));
  app.use(accessLog(deps.logger), httpMetrics);
  app.use(recordRequests(deps.requestRecorder, deps.deployment.version));
  // An MCP message is not itself an API request: only its refusals are recorded; the API requests
  // its tools make are, each recorded and billed like any other (decisions/clients.md, "Remote MCP").
  app.use(mcpRoutes(deps.auth, deps.mcp));
  app.use(refuseUndeclaredQuery());
  app.use(
    '/api/v1/memory',
    memoryRoutes(deps.memory, deps.auth, deps.templates, { writeBatchBudgetMs: deps.writeBatchBudgetMs }),
  );
  app.use('/api/v1/memory', restoreRoutes(deps.templates, deps.auth));
  app.use('/api/v1/control', controlRoutes(deps.auth, deps.control));
  app.use('/api/v1/infrastructure', infrastructureRoutes({ ...deps, billing: deps.control.billing }));
  app.use('/api/v1', openApiRoutes());
  app.use('/v1', templateRoutes(deps.templates, deps.auth));
  app.use('/v1', templateMemoryRoutes(deps.templates, deps.memory, deps.auth));
  app.use('/v1', importRoutes(deps.templates, deps.auth, deps.imports));
  app.use('/v1', chatRoutes(deps.memory, deps.auth));
  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}

/** How long a client may take over its requests, and how many connections it may hold (config.ts). */
export interface ConnectionLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  maxConnectionsPerAddress: number;
}

/**
 * Listen with bounds on slow and idle clients: a probe that sent one header line every 5 s
 * was still connected at 60 s, so a few hundred such sockets could hold every connection. Node checks
 * the header and request deadlines every `connectionsCheckingInterval` (30 s by default, which would
 * let a client overstay its deadline by that much): once a second here, a walk over the open
 * connections. Past the deadline the client gets 408 `request_timeout` (answer-client-error.ts) and
 * the connection is closed; a connection over the cap, or over its address's share
 * (connection-limits.ts), is closed as it is accepted.
 */
export async function startServer(
  app: express.Express,
  port: number,
  host: string,
  limits: ConnectionLimits,
  logger: Logger,
): Promise<Server> {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    },
    app,
  );
  server.maxConnections = limits.maxConnections;
  server.on('clientError', answerClientError);
  server.on('drop', () => {
    connectionsDropped.inc();
    logger.debug('connection refused: at the connection cap');
  });
  // The trusted proxies are judged by Express's compiled form of GATEWAY_TRUST_PROXY, the one
  // X-Forwarded-For is believed by: a proxy carries many clients and caps each itself (decisions/fairness.md).
  const isTrustedProxy = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  capConnectionsPerAddress(server, {
    maxPerAddress: limits.maxConnectionsPerAddress,
    isExempt: (address) => isTrustedProxy(address, 0),
    onRefused: (address) => {
      connectionsRefusedPerAddress.inc();
      logger.debug({ address }, 'connection refused: its address is at its connection cap');
    },
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Drain within `drainMs` (drain-server.ts); a request still held then gets a retryable 503. */
export function stopServer(server: Server, inFlight: InFlightRequests, drainMs: number, logger: Logger) {
  return drainServer(server, inFlight, {
    withinMs: drainMs,
    answerHeld: (req, res) => answerWithError(req, res, shuttingDown(), logger),
    logger,
  });
}

/** Retryable: the same request succeeds on another instance, or on this one once it is back. */
const shuttingDown = () =>
  new AppError(
    ErrorCode.ServiceUnavailable,
    'The service is restarting and could not finish this request; retry it',
    {
      retryAfter: 1,
    },
  );
