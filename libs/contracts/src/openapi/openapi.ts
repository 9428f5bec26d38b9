import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject } from 'zod-openapi';
import { UsageQuery, UsageResponse } from '../billing/billing.js';
import { LIMITS } from '../http/limits.js';
import { RequestIdHeader } from '../http/request-id.js';
import {
  CapabilitiesResponse,
  HealthResponse,
  HealthUnavailable,
  LivenessResponse,
} from '../infrastructure/infrastructure.js';
import { ReleaseRecord } from '../infrastructure/release.js';
import {
  DeleteReceipt,
  IdempotencyKey,
  Namespace,
  RecallRequest,
  RecallResponse,
  WriteBatchRequest,
  WriteBatchResponse,
  WriteRequest,
  WriteResponse,
} from '../memory/memory.js';
import { SCHEMA_VERSION } from '../runtime.js';
import { chatPaths } from './openapi-chat.js';
import { declareContractVersion } from './openapi-contract-version.js';
import { controlPaths } from './openapi-control.js';
import { importPaths } from './openapi-imports.js';
import { infrastructurePaths } from './openapi-infrastructure.js';
import { restorePaths } from './openapi-restore.js';
import { errors, json, parserErrors, publicRoute } from './openapi-shared.js';
import { templatePaths } from './openapi-templates.js';
import { webhookPaths } from './openapi-webhooks.js';

const requestIdHeader = RequestIdHeader;
const authed: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
const dataPlaneErrors = errors(400, 401, 403, 413, 415, 429, 500, 503, 504);

const writeOp: ZodOpenApiOperationObject = {
  operationId: 'memoryWrite',
  summary: 'Retain one event (idempotent)',
  security: authed,
  requestParams: {
    header: z.object({ 'Idempotency-Key': IdempotencyKey.optional(), 'X-Request-Id': requestIdHeader }),
  },
  requestBody: { required: true, ...json(WriteRequest) },
  responses: {
    '200': { description: 'Outcome: read state and decision', ...json(WriteResponse) },
    ...dataPlaneErrors,
    ...errors(409),
  },
};

const writeBatchOp: ZodOpenApiOperationObject = {
  operationId: 'memoryWriteBatch',
  summary: `Retain up to ${LIMITS.writeBatchMaxItems} events in one namespace, each idempotent on its own key`,
  description:
    `One namespace, 1 to ${LIMITS.writeBatchMaxItems} items, each with its own \`idempotency_key\` and \`event\` ` +
    '(the event as `/write` takes it). 200 answers one result per item, in request order, each with the ' +
    'status and body a single `/write` of that item would have answered: the write response (Accepted or ' +
    'Replayed), or its error envelope (409 for an idempotency conflict or a duplicate event, 400 ' +
    '`validation_failed` naming `items[i].…`). Good items are written even when others are refused. A ' +
    'fault of the batch itself (not JSON, contract_version, operation, namespace, items not a list of ' +
    `1 to ${LIMITS.writeBatchMaxItems}) is one 400 and nothing is written. Billed per item retained, as the ` +
    "single writes would be; a batch counts as one request per item against the rate limits, and its items' " +
    "text past the first 1,024 characters of each against the tenant's text budget (429 with Retry-After " +
    "past it, nothing written). An item not started within the request's time is answered 503 " +
    "`service_unavailable`, retryable, and is not written (the batch's `retryable` is then true). On a retryable " +
    'failure of the whole batch (503, 504, 429, 409 `namespace_being_deleted`) resend the same batch: ' +
    `written items replay, the rest are written. Body at most ${LIMITS.writeBatchBodyMaxBytes} bytes (413). ` +
    'The `Idempotency-Key` header is refused (400): keys are per item.',
  security: authed,
  requestParams: { header: z.object({ 'X-Request-Id': requestIdHeader }) },
  requestBody: { required: true, ...json(WriteBatchRequest) },
  responses: {
    '200': { description: 'One result per item, in request order', ...json(WriteBatchResponse) },
    ...dataPlaneErrors,
    ...errors(409),
  },
};

const recallOp: ZodOpenApiOperationObject = {
  operationId: 'memoryRecall',
  summary: 'Rank retained text by weighted lexical overlap with a cue',
  description:
    'Cue and text are stemmed (Snowball English); each distinct content term of the cue weighs its inverse ' +
    'document frequency in the namespace, and a record’s score is the share of that weight it holds. The ' +
    'cue’s function words do not score; they break ties between records of equal score, before recency. ' +
    '`explain: true` returns each result’s terms, weights and matches (`explanation`). A namespace written ' +
    'before a ranking upgrade ranks by its old index until re-indexed (`ranking.model_version`). A tenant’s ' +
    'recalls run a few at a time on each instance of the memory service, a few more wait their turn, and ' +
    'other tenants’ recalls are served in turn with them; past that a recall is refused at once with 429 ' +
    '`rate_limited` and Retry-After (503 `service_unavailable` when every tenant together fills the ' +
    'instance), never held until the deadline.',
  security: authed,
  requestParams: { header: z.object({ 'X-Request-Id': requestIdHeader }) },
  requestBody: { required: true, ...json(RecallRequest) },
  responses: {
    '200': { description: 'Ranked related results', ...json(RecallResponse) },
    ...dataPlaneErrors,
  },
};

const deletionStarted = {
  headers: z.object({
    Location: z.string().meta({ description: 'The deletion’s status route, /api/v1/memory/deletions/{id}' }),
    'Retry-After': z.string().meta({ description: 'Seconds to wait before polling it' }),
  }),
};

const deleteOp: ZodOpenApiOperationObject = {
  operationId: 'memoryDelete',
  summary: 'Delete one namespace: records, supersession relations and idempotency state',
  description:
    'The namespace is the `namespace` query parameter; a JSON body `{ "namespace": … }` is also accepted and ' +
    'must agree. The namespace’s records are hidden from recall, export and reads at once, and a deletion ' +
    'job removes them in bounded batches that survive restarts. 200 with the final receipt when the job ' +
    'finishes within a short wait; otherwise 202 with the receipt so far and `Location`, the status route ' +
    'to poll. Asking again while the job runs answers the same job. A write to the namespace meanwhile is ' +
    'refused with 409 `namespace_being_deleted` (retryable). The namespace’s template data is deleted first, in ' +
    'committed batches that go on on the server; while that takes longer than a short wait the answer is 503 ' +
    '`service_unavailable` (retryable, `Retry-After`), and asking again follows the same deletion, never ' +
    'starting over.',
  security: authed,
  requestParams: {
    query: z.object({ namespace: Namespace }),
    header: z.object({ 'X-Request-Id': requestIdHeader }),
  },
  responses: {
    '200': { description: 'Delete receipt: the deletion has completed', ...json(DeleteReceipt) },
    '202': {
      description: 'Delete receipt: the deletion is under way (deletion.status in_progress)',
      ...deletionStarted,
      ...json(DeleteReceipt),
    },
    ...dataPlaneErrors,
  },
};

const deletionOp: ZodOpenApiOperationObject = {
  operationId: 'memoryDeletion',
  summary: 'The state of a namespace deletion of the caller’s tenant',
  description:
    'The receipt as it stands: `deletion.status` is `in_progress` (poll again after Retry-After) or ' +
    '`completed`. A deletion of another tenant, or one unknown, is 404.',
  security: authed,
  requestParams: {
    path: z.object({ deletion_id: z.string().meta({ description: 'deletion.id from the delete receipt' }) }),
    header: z.object({ 'X-Request-Id': requestIdHeader }),
  },
  responses: {
    '200': { description: 'Delete receipt as it stands', ...json(DeleteReceipt) },
    ...dataPlaneErrors,
    ...errors(404),
  },
};

/** The machine-readable description of the API, generated from the same schemas the code validates with. */
export function buildOpenApiDocument(): ReturnType<typeof createDocument> {
  return declareContractVersion(
    createDocument({
      openapi: '3.1.0',
      info: {
        title: 'Text-Memory Service API',
        version: SCHEMA_VERSION,
        description:
          'Tenant-scoped text memory: write, recall, delete, with provenance, usage and telemetry. Contract v1.',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      // Paths are absolute from the deployment's origin (`/api/v1/…`, `/v1/…`); the document is served there.
      servers: [{ url: '/', description: 'The deployment serving this document' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          sessionAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'Authorization: Bearer <SESSION_TOKEN> from POST /api/v1/control/sessions',
          },
        },
      },
      paths: {
        ...controlPaths,
        ...webhookPaths,
        ...infrastructurePaths,
        ...templatePaths,
        ...importPaths,
        ...chatPaths,
        ...restorePaths,
        '/api/v1/memory/write': { post: writeOp },
        '/api/v1/memory/write/batch': { post: writeBatchOp },
        '/api/v1/memory/recall': { post: recallOp },
        '/api/v1/memory': { delete: deleteOp },
        '/api/v1/memory/deletions/{deletion_id}': { get: deletionOp },
        '/api/v1/infrastructure/health': {
          get: {
            operationId: 'health',
            summary: 'Service and deployment readiness (public): 503 when writes cannot be served',
            description:
              'Every service reports its own dependencies (its database, NATS, its JetStream consumers); the ' +
              'gateway adds its own database (`gateway_store`). 200 while writes can be served, with ' +
              '`status: degraded` and the entries at fault when something optional is down; 503 with the same ' +
              'report, the error envelope and Retry-After when a required one is (`required: true`). For a ' +
              'load balancer or a readiness probe; a liveness probe asks `/api/v1/infrastructure/health/live`.',
            security: publicRoute,
            responses: {
              '200': { description: 'Serving: status ok or degraded', ...json(HealthResponse) },
              ...parserErrors(),
              '503': {
                description:
                  'Not serving writes: a required service or database is unavailable; retry after Retry-After',
                ...json(HealthUnavailable),
              },
            },
          },
        },
        '/api/v1/infrastructure/health/live': {
          get: {
            operationId: 'liveness',
            summary: 'Liveness (public): 200 while the gateway process runs; asks no dependency',
            security: publicRoute,
            responses: {
              '200': { description: 'The process runs', ...json(LivenessResponse) },
              ...parserErrors(),
            },
          },
        },
        '/api/v1/infrastructure/usage': {
          get: {
            operationId: 'usage',
            summary:
              'Usage over a lookback window, from the billing ledger (API key with telemetry:read, or a session)',
            security: [...authed, { sessionAuth: [] }],
            requestParams: { query: UsageQuery, header: z.object({ 'X-Request-Id': requestIdHeader }) },
            responses: {
              '200': {
                description: 'Usage: state no_data when the window holds no record',
                ...json(UsageResponse),
              },
              ...errors(400, 401, 403, 429, 500, 503, 504),
            },
          },
        },
        '/api/v1/infrastructure/capabilities': {
          get: {
            operationId: 'capabilities',
            summary: 'Enabled operations, guarantees and limitations (public)',
            security: publicRoute,
            responses: {
              '200': { description: 'Capability manifest', ...json(CapabilitiesResponse) },
              ...parserErrors(),
            },
          },
        },
        '/api/v1/infrastructure/release': {
          get: {
            operationId: 'release',
            summary:
              'Release record: deployment, contract and schema versions, capability manifest and health (public view; all of it with an operator token)',
            description:
              'Without a credential, the public view: versions, the capability manifest and health by entry ' +
              '(available, required), without readings. With a live operator token in `X-Operator-Token` (any ' +
              'tenant’s), the operator view adds the latest migration applied to each database and health’s ' +
              'readings (database latencies, consumer backlogs, re-index progress). Answered 200 whatever the ' +
              'health: the record says it. The dev launcher writes the public record to ' +
              '`.data/releases/<time>.json` on each start.',
            security: publicRoute,
            requestParams: {
              header: z.object({
                'X-Request-Id': requestIdHeader,
                'X-Operator-Token': z.string().optional().meta({
                  description:
                    'A live operator token (POST /api/v1/control/operator-tokens): the operator view',
                }),
              }),
            },
            responses: {
              '200': { description: 'The deployment as it is now', ...json(ReleaseRecord) },
              ...errors(403),
              ...parserErrors(),
            },
          },
        },
        '/api/v1/openapi.json': {
          get: {
            operationId: 'openapi',
            summary: 'This document (public)',
            security: publicRoute,
            responses: {
              '200': { description: 'OpenAPI 3.1 document', ...json(z.record(z.string(), z.unknown())) },
              ...parserErrors(),
            },
          },
        },
      },
    }),
  );
}
