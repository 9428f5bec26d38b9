import type { ErrorCode, RequestOutcome, RequestRecord, WriteBatchItemCounts } from '@tm/contracts';
import { timeOrderedId } from '@tm/kit';
import type { Request, RequestHandler } from 'express';
import type { RequestRecorder } from '../../../clients/request-recorder.js';
import { chargedUnits } from '../../../domain/data-plane/charged-units.js';
import { namespaceRef } from '../../../domain/data-plane/namespace-ref.js';
import { routeOperationOf } from '../route-operations.js';

/** What a route knows of its own result, for the request record (its route and operation are in route-operations.ts). */
export interface RecordNote {
  namespace?: string;
  state?: string;
  units?: number;
  billingState?: RequestRecord['billing_state'];
  /** A batch write's items by how each was answered. */
  itemCounts?: WriteBatchItemCounts;
}

declare global {
  namespace Express {
    interface Request {
      recordNote?: RecordNote;
    }
  }
}

/** Add to what the request record will say about this request. */
export function noteForRecord(req: Request, note: RecordNote): void {
  req.recordNote = { ...req.recordNote, ...note };
}

const CLIENT_CLOSED_REQUEST = 499;
/** The one route key of every path no route serves. */
const UNMATCHED = '(unmatched)';

/** Refused before any work was done: no or a bad credential, a denied permission, a rate limit. */
const BLOCKED = new Set([401, 403, 429]);

function outcomeOf(status: number): RequestOutcome {
  if (status < 400) return 'accepted';
  return BLOCKED.has(status) ? 'blocked' : 'failed';
}

/**
 * What a metered answer (a write, a recall, a delete, a template memory) says for the record: what
 * the ledger charged for it (a replay: nothing, so `no_data` with 0 units).
 */
export function meteredNote(result: Parameters<typeof chargedUnits>[0] & { state: string }): RecordNote {
  return { state: result.state, ...chargedNote(chargedUnits(result)) };
}

/** Units the ledger charged (null: none) in the record's words. */
export function chargedNote(units: number | null): Pick<RecordNote, 'units' | 'billingState'> {
  return units === null ? { units: 0, billingState: 'no_data' } : { units, billingState: 'billable' };
}

/**
 * A route that is not itself an API request (the /mcp messages: their tools' API requests are the
 * records) marks its answers so: only its refusals (4xx, 5xx) are recorded, a 401, 403 or 429 as
 * `blocked` like any other.
 */
export function recordRefusalsOnly(): RequestHandler {
  return (_req, res, next) => {
    res.locals.recordRefusalsOnly = true;
    next();
  };
}

/**
 * Every request, accepted, failed or blocked, is recorded for telemetry (a redacted RequestRecord on
 * JetStream) once the answer is out, so recording adds nothing to the caller's wait. The record
 * carries the route's template and its operation, never the path a caller typed: a path no route
 * serves is `(unmatched)`, with no operation, so callers cannot mint keys for the rollups.
 * Units and billing state are the route's (billable, or no_data with 0 units: a replay, a read, a
 * refusal), in the spec's billing vocabulary.
 */
export function recordRequests(recorder: RequestRecorder, deploymentVersion: string): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const { method, path } = req;
    // 'close' comes for every request, also one whose client hung up before the answer was out
    // (recorded as 499, nginx's "client closed request").
    res.once('close', () => {
      const note = req.recordNote ?? {};
      const mcp = req.mcpCaller;
      // A key refused after it was verified (403) is its tenant's blocked attempt.
      const verified = req.verifiedCaller;
      const tenantId =
        req.scope?.tenant_id ??
        req.account?.tenantId ??
        req.reader?.tenantId ??
        mcp?.tenantId ??
        verified?.tenantId ??
        null;
      // A stream the gateway broke off (error-handler.ts) is recorded with its error's status.
      const status = res.writableFinished
        ? res.statusCode
        : ((res.locals.cutShortStatus as number | undefined) ?? CLIENT_CLOSED_REQUEST);
      if (res.locals.recordRefusalsOnly === true && status < 400) return;
      const accepted = status < 400;
      const reached = res.locals.unmatchedRoute ? undefined : routeOperationOf(method, path);
      recorder.record({
        version: 'v1',
        record_id: timeOrderedId(),
        request_id: req.requestId,
        tenant_id: tenantId,
        key_id: req.scope?.key_id ?? req.reader?.keyId ?? mcp?.keyId ?? verified?.keyId ?? null,
        user_id:
          req.scope?.user_id ??
          req.account?.userId ??
          req.reader?.userId ??
          mcp?.userId ??
          verified?.userId ??
          null,
        method,
        route: reached?.route ?? UNMATCHED,
        operation: reached?.operation ?? null,
        status,
        outcome: outcomeOf(status),
        state: accepted ? (note.state ?? null) : null,
        error_code: (res.locals.errorCode as ErrorCode | undefined) ?? null,
        latency_ms: Math.round((performance.now() - started) * 1000) / 1000,
        units: accepted ? (note.units ?? 0) : 0,
        billing_state: accepted ? (note.billingState ?? 'no_data') : 'no_data',
        namespace_ref: tenantId && note.namespace ? namespaceRef(tenantId, note.namespace) : null,
        ...(accepted && note.itemCounts ? { item_counts: note.itemCounts } : {}),
        deployment_version: deploymentVersion,
        occurred_at: new Date().toISOString(),
      });
    });
    next();
  };
}
