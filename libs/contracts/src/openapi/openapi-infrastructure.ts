import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { ErrorEnvelope } from '../http/envelope.js';
import { SmokeTestResponse, StatusResponse } from '../infrastructure/infrastructure.js';
import { Namespace } from '../memory/memory.js';
import { NamespacesPage, NamespacesQuery } from '../memory/namespaces.js';
import {
  AnomaliesResponse,
  EventsPage,
  EventsQuery,
  ExportDocument,
  MetricsQuery,
  MetricsResponse,
  WindowQuery,
} from '../telemetry/telemetry.js';
import { errors, json, requestIdHeaders } from './openapi-shared.js';

const apiKey: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
const reader = [...apiKey, { sessionAuth: [] }];
const readErrors = errors(400, 401, 403, 429, 500, 503, 504);

const SmokeTestFailure = SmokeTestResponse.extend({
  error: z.string(),
  retryable: z.literal(true),
  details: ErrorEnvelope.shape.details,
}).meta({ id: 'SmokeTestFailure' });

/**
 * The telemetry routes: history, metrics, anomalies, status, export and the smoke test; and the
 * namespace listing.
 */
export const infrastructurePaths: ZodOpenApiPathsObject = {
  '/api/v1/infrastructure/events': {
    get: {
      operationId: 'events',
      summary: 'Redacted request history, newest first (API key with telemetry:read, or a session)',
      security: reader,
      requestParams: { query: EventsQuery, header: requestIdHeaders },
      responses: { '200': { description: 'One page of the history', ...json(EventsPage) }, ...readErrors },
    },
  },
  '/api/v1/infrastructure/namespaces': {
    get: {
      operationId: 'namespaces',
      summary:
        'The tenant’s namespaces that hold records, with their counts, by name (API key with telemetry:read, or a session)',
      description:
        'Keyset-paged by name: send a page’s `next_cursor` as `cursor` for the next. Counts are read when the page is, ' +
        'so a namespace written or deleted meanwhile may show either way; a namespace whose records are all deleted is absent.',
      security: reader,
      requestParams: { query: NamespacesQuery, header: requestIdHeaders },
      responses: {
        '200': { description: 'One page of namespaces', ...json(NamespacesPage) },
        ...readErrors,
      },
    },
  },
  '/api/v1/infrastructure/metrics': {
    get: {
      operationId: 'metrics',
      summary:
        'Latency percentiles per operation, request quality, operation mix, deployment attribution and a time series',
      security: reader,
      requestParams: { query: MetricsQuery, header: requestIdHeaders },
      responses: {
        '200': { description: 'Metrics over the window', ...json(MetricsResponse) },
        ...readErrors,
      },
    },
  },
  '/api/v1/infrastructure/anomalies': {
    get: {
      operationId: 'anomalies',
      summary: 'Thresholded signals over the window, each with severity, observed value and threshold',
      security: reader,
      requestParams: { query: WindowQuery, header: requestIdHeaders },
      responses: {
        '200': { description: 'anomaly_count 0: no threshold crossed', ...json(AnomaliesResponse) },
        ...readErrors,
      },
    },
  },
  '/api/v1/infrastructure/status': {
    get: {
      operationId: 'status',
      summary: 'Combined health, monitoring (anomalies, dropped telemetry) and consent state',
      security: reader,
      requestParams: { header: requestIdHeaders },
      responses: { '200': { description: 'Status', ...json(StatusResponse) }, ...readErrors },
    },
  },
  '/api/v1/infrastructure/export': {
    get: {
      operationId: 'export',
      summary: 'Streamed JSON snapshot: retained records, supersession relations and redacted history',
      description:
        'Select namespaces with `namespace` (repeat it, up to 100); without it every namespace of the tenant is exported. ' +
        'API key with export:read, or a session whose role has it. The first page of every part is read before the 200, so an outage ' +
        'is a retryable 503/504 (Retry-After); a later page that cannot be read after retries breaks the transfer off (no final chunk).',
      security: reader,
      requestParams: {
        query: z.object({ namespace: z.union([Namespace, z.array(Namespace)]).optional() }),
        header: requestIdHeaders,
      },
      responses: { '200': { description: 'The export', ...json(ExportDocument) }, ...readErrors },
    },
  },
  '/api/v1/infrastructure/smoke-test': {
    post: {
      operationId: 'smokeTest',
      summary: 'Authorized diagnostic: write, recall and delete in a reserved namespace (metered)',
      description:
        'Needs an API key with memory:write and an active managed storage connection, the tenant’s operator token ' +
        '(X-Operator-Token), the key user’s active consent, and a deployment policy that allows smoke tests.',
      security: apiKey,
      requestParams: { header: requestIdHeaders.extend({ 'X-Operator-Token': z.string() }) },
      responses: {
        '200': { description: 'Every step passed', ...json(SmokeTestResponse) },
        ...errors(400, 401, 403, 429, 500),
        '503': { description: 'A step failed (the report says which); retryable', ...json(SmokeTestFailure) },
        '504': errors(504)['504'] as never,
      },
    },
  },
};
