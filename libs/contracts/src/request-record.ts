import { z } from 'zod';
import { ErrorCode } from './errors.js';

const errorCodes = Object.values(ErrorCode) as [ErrorCode, ...ErrorCode[]];

/**
 * One redacted record of an HTTP request, published by the gateway after it has answered. It names
 * the request, never its content: no memory text, cue, namespace, key, token or password.
 * `tenant_id` is null when no credential was verified (a 401).
 */
export const RequestRecord = z.object({
  version: z.literal('v1'),
  request_id: z.string(),
  tenant_id: z.string().nullable(),
  method: z.string(),
  /** The route's template (ids replaced), e.g. /api/v1/control/api-keys/{id}. */
  route: z.string(),
  operation: z.string().nullable(),
  status: z.number().int(),
  outcome: z.enum(['accepted', 'failed', 'blocked']),
  error_code: z.enum(errorCodes).nullable(),
  latency_ms: z.number().nonnegative(),
  occurred_at: z.iso.datetime({ offset: true }),
});
export type RequestRecord = z.infer<typeof RequestRecord>;
