import { z } from 'zod';
import { ErrorCodeSchema } from '../http/envelope.js';
import { REQUEST_ID_MAX } from '../http/request-id.js';
import { WriteBatchItemCounts } from '../memory/memory.js';
import { BillingState } from '../runtime.js';

/** accepted: 2xx/3xx. blocked: refused before any work (401, 403, 429). failed: every other 4xx/5xx. */
export const RequestOutcome = z.enum(['accepted', 'failed', 'blocked']);
export type RequestOutcome = z.infer<typeof RequestOutcome>;

/**
 * The spec's billing vocabulary. billable: a usage record was written (units > 0). no_data: nothing
 * billable was measured, units 0: a replay, nothing retained, a route that is never charged, a request
 * that failed. A record is written when its request ends, so it never says `void` (a charge voided
 * later shows in the charges and the usage route).
 */
export const RecordBillingState = BillingState.exclude(['void']);
export type RecordBillingState = z.infer<typeof RecordBillingState>;

/** The longest route a record keeps. */
export const ROUTE_MAX = 200;

/**
 * A route as a record keeps it: a longer one (a path with a long name or id in it, which the record
 * holds as typed) is cut to ROUTE_MAX characters ending in `…`, so an odd request is still recorded,
 * and a path cannot make a record nobody will store. Never cut inside a UTF-16 surrogate pair.
 */
export function fitRoute(route: string): string {
  if (route.length <= ROUTE_MAX) return route;
  let end = ROUTE_MAX - 1;
  const last = route.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${route.slice(0, end)}…`;
}

/**
 * One redacted record of an HTTP request, published by the gateway after it has answered. It names
 * the request, never its content: no memory text, cue, namespace name, key, token or password.
 * `tenant_id` is null when no credential identified a tenant (most 401s).
 */
export const RequestRecord = z.object({
  version: z.literal('v1'),
  /** Unique per HTTP request (the request id may repeat: a client keeps it on a retry). */
  record_id: z.uuid(),
  request_id: z.string().min(1).max(REQUEST_ID_MAX),
  tenant_id: z.string().max(128).nullable(),
  /** Who, within the tenant: the API key's id (as listed in the control plane) and its user, or the session's user. */
  key_id: z.string().max(128).nullable().default(null),
  user_id: z.string().max(128).nullable().default(null),
  method: z.string().max(16),
  /** The route's template (ids replaced), e.g. /api/v1/control/api-keys/{id}; `(unmatched)` for a 404 path. */
  route: z.string().max(ROUTE_MAX),
  // Bounded like the route: it is part of the rollups' key, where PostgreSQL refuses a long one.
  operation: z.string().max(100).nullable(),
  // Bounds the table's columns hold (int, int): a record beyond them is refused here, alone.
  status: z.number().int().min(100).max(599),
  outcome: RequestOutcome,
  /** The answer's `state` (retained, not_retained, matched…) when it had one. */
  state: z.string().max(40).nullable(),
  error_code: ErrorCodeSchema.nullable(),
  latency_ms: z.number().nonnegative(),
  units: z.number().int().nonnegative().max(2_147_483_647),
  billing_state: RecordBillingState,
  /**
   * A digest of tenant and namespace for memory operations, so a namespace's history can be selected
   * (export) and outlives its deletion without naming it.
   */
  namespace_ref: z.string().max(64).nullable(),
  /** A batch write's items by how each was answered; absent on every other request. */
  item_counts: WriteBatchItemCounts.optional(),
  deployment_version: z.string().max(64),
  occurred_at: z.iso.datetime({ offset: true }),
});
export type RequestRecord = z.infer<typeof RequestRecord>;

export const REQUEST_RECORD_BATCH_MAX = 500;

/**
 * What the gateway publishes: the records it had queued, and how many it dropped (buffer full while
 * NATS was away) since its previous batch, so monitoring can count lost telemetry.
 */
export const RequestRecordBatch = z.object({
  version: z.literal('v1'),
  gateway_instance: z.string().min(1),
  dropped: z.number().int().nonnegative(),
  records: z.array(RequestRecord).max(REQUEST_RECORD_BATCH_MAX),
});
export type RequestRecordBatch = z.infer<typeof RequestRecordBatch>;

/**
 * A batch as telemetry first reads it: the envelope checked, each record left to be checked on its
 * own, so one bad record is dead-lettered alone and does not take its neighbours with it.
 */
export const RequestRecordEnvelope = RequestRecordBatch.extend({
  records: z.array(z.unknown()).max(REQUEST_RECORD_BATCH_MAX),
});
export type RequestRecordEnvelope = z.infer<typeof RequestRecordEnvelope>;
