import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { ErrorEnvelope } from './envelope.js';
import { CapabilitiesResponse, HealthResponse } from './infrastructure.js';
import {
  DeleteReceipt,
  IdempotencyKey,
  Namespace,
  RecallRequest,
  RecallResponse,
  WriteRequest,
  WriteResponse,
} from './memory.js';
import { SCHEMA_VERSION } from './runtime.js';

const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

const errors = (...statuses: number[]): ZodOpenApiResponsesObject =>
  Object.fromEntries(
    statuses.map((s) => [String(s), { description: errorMeaning[s] ?? 'Error', ...json(ErrorEnvelope) }]),
  );

const errorMeaning: Record<number, string> = {
  400: 'Malformed or invalid request; correct it, do not retry unchanged',
  401: 'Authentication required: send an API key or session token',
  403: 'Valid credential denied by policy, role, consent, storage or capability',
  404: 'Resource or route unavailable to the caller',
  409: 'Idempotency conflict, duplicate event, or the same key still in flight (retryable)',
  413: 'Body larger than the limit',
  415: 'Body is not application/json',
  429: 'Rate or usage limit; honour Retry-After',
  500: 'Internal failure',
  503: 'A service or its storage is unavailable; retryable, honour Retry-After',
  504: 'A service did not answer within the deadline; retryable with the same idempotency key',
};

const requestIdHeader = z.string().max(128).optional().meta({
  description: 'Client-chosen correlation id (visible ASCII, up to 128); echoed, else generated',
});
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

const recallOp: ZodOpenApiOperationObject = {
  operationId: 'memoryRecall',
  summary: 'Rank retained text by lexical overlap with a cue',
  security: authed,
  requestParams: { header: z.object({ 'X-Request-Id': requestIdHeader }) },
  requestBody: { required: true, ...json(RecallRequest) },
  responses: {
    '200': { description: 'Ranked related results', ...json(RecallResponse) },
    ...dataPlaneErrors,
  },
};

const deleteOp: ZodOpenApiOperationObject = {
  operationId: 'memoryDelete',
  summary: 'Delete one namespace: records, supersession relations and idempotency state',
  description:
    'The namespace is the `namespace` query parameter; a JSON body `{ "namespace": … }` is also accepted and must agree.',
  security: authed,
  requestParams: {
    query: z.object({ namespace: Namespace }),
    header: z.object({ 'X-Request-Id': requestIdHeader }),
  },
  responses: { '200': { description: 'Delete receipt', ...json(DeleteReceipt) }, ...dataPlaneErrors },
};

/** The machine-readable description of the API, generated from the same schemas the code validates with. */
export function buildOpenApiDocument() {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Text-Memory Service API',
      version: SCHEMA_VERSION,
      description:
        'Tenant-scoped text memory: write, recall, delete, with provenance, usage and telemetry. Contract v1.',
    },
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
    paths: {
      '/api/v1/memory/write': { post: writeOp },
      '/api/v1/memory/recall': { post: recallOp },
      '/api/v1/memory': { delete: deleteOp },
      '/api/v1/infrastructure/health': {
        get: {
          operationId: 'health',
          summary: 'Service and deployment readiness (public)',
          responses: { '200': { description: 'Health', ...json(HealthResponse) } },
        },
      },
      '/api/v1/infrastructure/capabilities': {
        get: {
          operationId: 'capabilities',
          summary: 'Enabled operations, guarantees and limitations (public)',
          responses: { '200': { description: 'Capability manifest', ...json(CapabilitiesResponse) } },
        },
      },
      '/api/v1/openapi.json': {
        get: {
          operationId: 'openapi',
          summary: 'This document',
          responses: {
            '200': { description: 'OpenAPI 3.1 document', ...json(z.record(z.string(), z.unknown())) },
          },
        },
      },
    },
  });
}
