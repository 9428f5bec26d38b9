import { z } from 'zod';
import type { ZodOpenApiResponsesObject } from 'zod-openapi';
import { ErrorEnvelope } from '../http/envelope.js';
import { RequestIdHeader } from '../http/request-id.js';

export const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

export const errors = (...statuses: number[]): ZodOpenApiResponsesObject =>
  Object.fromEntries(
    statuses.map((s) => [String(s), { description: errorMeaning[s] ?? 'Error', ...json(ErrorEnvelope) }]),
  );

const errorMeaning: Record<number, string> = {
  400: 'Malformed or invalid request; correct it, do not retry unchanged',
  401: 'Authentication required: send an API key or session token',
  403: 'Valid credential denied by policy, role, consent, storage or capability',
  404: 'Resource or route unavailable to the caller',
  409: 'Conflict: idempotency mismatch, duplicate event or resource, the same key still in flight, or a namespace still being deleted (both retryable)',
  408: 'The upload stalled (upload_timeout)',
  412: 'If-Match names a revision that is no longer current: read the resource again',
  413: 'Body larger than the limit',
  431: 'Request headers larger than 16 KiB (headers_too_large)',
  415: 'Body is not application/json, or an unsupported file type',
  422: 'The model-hub dataset cannot be imported as asked (remote_code_required, dataset_split_unavailable)',
  429: 'Rate, usage or concurrency limit (rate_limited, too_many_imports); honour Retry-After',
  500: 'Internal failure',
  503: 'A service or its storage is unavailable; retryable, honour Retry-After',
  504: 'A service did not answer within the deadline; retryable, honour Retry-After (a write with the same idempotency key)',
};

/** Routes anyone may call: an explicit empty `security`, so the document does not read as an omission. */
export const publicRoute: Array<Record<string, string[]>> = [];

/**
 * What a route that reads no input can still answer: Node's parser refuses a broken request line (400
 * `malformed_request`) or oversized headers (431) before any route runs.
 */
export const parserErrors = () => errors(400, 431);

/** The correlation header every route takes. */
export const requestIdHeaders = z.object({ 'X-Request-Id': RequestIdHeader });
