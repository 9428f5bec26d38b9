import type { ErrorCode } from '@tm/contracts';
import type { RequestHandler } from 'express';
import type { RequestRecorder } from '../../../clients/request-recorder.js';

/** Refused before any work was done: no or a bad credential, a denied permission, a rate limit. */
const BLOCKED = new Set([401, 403, 429]);
const OPERATIONS: Record<string, string> = {
  'POST /api/v1/memory/write': 'memory.write',
  'POST /api/v1/memory/recall': 'memory.recall',
  'DELETE /api/v1/memory': 'memory.delete',
};
const IDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * Blocked attempts are recorded for telemetry (a redacted RequestRecord on JetStream) once the
 * answer is out, so recording adds nothing to the caller's wait.
 */
export function recordBlocked(recorder: RequestRecorder): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const { method, path } = req;
    res.once('finish', () => {
      if (!BLOCKED.has(res.statusCode)) return;
      const route = path.replace(IDS, '{id}').replace(/\/+$/, '') || '/';
      recorder.record({
        version: 'v1',
        request_id: req.requestId,
        tenant_id: req.scope?.tenant_id ?? req.account?.tenantId ?? req.reader?.tenantId ?? null,
        method,
        route,
        operation: OPERATIONS[`${method} ${route}`] ?? null,
        status: res.statusCode,
        outcome: 'blocked',
        error_code: (res.locals.errorCode as ErrorCode | undefined) ?? null,
        latency_ms: Math.round((performance.now() - started) * 1000) / 1000,
        occurred_at: new Date().toISOString(),
      });
    });
    next();
  };
}
