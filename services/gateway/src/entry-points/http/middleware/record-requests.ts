import { type ErrorCode, fitRoute, type RequestOutcome, type RequestRecord } from '@tm/contracts';
import { timeOrderedId } from '@tm/kit';
import type { Request, RequestHandler } from 'express';
import type { RequestRecorder } from '../../../clients/request-recorder.js';
import { namespaceRef } from '../../../domain/data-plane/namespace-ref.js';

/** What a route knows of its own result, for the request record. */
export interface RecordNote {
  operation?: string;
  /** The route's template, for paths that carry a caller's names (`/v1/templates/{template_name_or_id}`). */
  route?: string;
  namespace?: string;
  state?: string;
  units?: number;
  billingState?: RequestRecord['billing_state'];
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

/**
 * Names the operation (and, for paths that carry a caller's names, the route's template) for the
 * request record, before anything can refuse the request.
 */
export const recordAs =
  (operation: string, route?: string): RequestHandler =>
  (req, _res, next) => {
    noteForRecord(req, route ? { operation, route } : { operation });
    next();
  };

const CLIENT_CLOSED_REQUEST = 499;

/** Refused before any work was done: no or a bad credential, a denied permission, a rate limit. */
const BLOCKED = new Set([401, 403, 429]);
const IDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

function outcomeOf(status: number): RequestOutcome {
  if (status < 400) return 'accepted';
  return BLOCKED.has(status) ? 'blocked' : 'failed';
}

/**
 * Every request, accepted, failed or blocked, is recorded for telemetry (a redacted RequestRecord on
 * JetStream) once the answer is out, so recording adds nothing to the caller's wait. The record
 * carries the route's template, never the path a caller typed: an unknown path is `(unmatched)`.
 */
export function recordRequests(recorder: RequestRecorder, deploymentVersion: string): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const { method, path } = req;
    // 'close' comes for every request, also one whose client hung up before the answer was out
    // (recorded as 499, nginx's "client closed request").
    res.once('close', () => {
      const note = req.recordNote ?? {};
      const tenantId = req.scope?.tenant_id ?? req.account?.tenantId ?? req.reader?.tenantId ?? null;
      // A stream the gateway broke off (error-handler.ts) is recorded with its error's status.
      const status = res.writableFinished
        ? res.statusCode
        : ((res.locals.cutShortStatus as number | undefined) ?? CLIENT_CLOSED_REQUEST);
      const accepted = status < 400;
      recorder.record({
        version: 'v1',
        record_id: timeOrderedId(),
        request_id: req.requestId,
        tenant_id: tenantId,
        key_id: req.scope?.key_id ?? req.reader?.keyId ?? null,
        user_id: req.scope?.user_id ?? req.account?.userId ?? req.reader?.userId ?? null,
        method,
        // A path with a long name in it is cut, not sent to be refused (telemetry dead-letters a
        // record that breaks its schema; before [P11] it discarded the record's whole batch).
        route: res.locals.unmatchedRoute
          ? '(unmatched)'
          : fitRoute(note.route ?? (path.replace(IDS, '{id}').replace(/\/+$/, '') || '/')),
        operation: note.operation ?? null,
        status,
        outcome: outcomeOf(status),
        state: accepted ? (note.state ?? null) : null,
        error_code: (res.locals.errorCode as ErrorCode | undefined) ?? null,
        latency_ms: Math.round((performance.now() - started) * 1000) / 1000,
        units: accepted ? (note.units ?? 0) : 0,
        billing_state: accepted ? (note.billingState ?? 'not_metered') : 'not_metered',
        namespace_ref: tenantId && note.namespace ? namespaceRef(tenantId, note.namespace) : null,
        deployment_version: deploymentVersion,
        occurred_at: new Date().toISOString(),
      });
    });
    next();
  };
}
