import { Router } from 'express';
import type { MemoryClient } from '../../../clients/memory-client.js';
import { requireOperatorCapability } from '../../../domain/control/operator-tokens.js';
import {
  checkSmokeTestAllowed,
  runSmokeTest,
  type SmokeTestPolicy,
} from '../../../domain/operations/run-smoke-test.js';
import { type AuthDeps, requireApiKey, scopeOf } from '../middleware/authenticate.js';
import { chargedNote, noteForRecord } from '../middleware/record-requests.js';

/**
 * POST /smoke-test: an authorized diagnostic. It needs an API key with `memory:write` and an active
 * managed storage connection (metered like any write), the tenant's operator token in
 * X-Operator-Token, the key user's active consent, and a deployment policy that allows it.
 * 200 when every step passed; 503 (retryable) with the same report when one failed.
 */
export function smokeTestRoute(deps: {
  auth: AuthDeps;
  memory: MemoryClient;
  smokeTestPolicy: SmokeTestPolicy;
}): Router {
  const router = Router();
  router.post('/smoke-test', requireApiKey(deps.auth, 'memory:write'), async (req, res) => {
    const scope = scopeOf(req);
    await requireOperatorCapability(scope.tenant_id, req.get('x-operator-token'));
    checkSmokeTestAllowed(scope, deps.smokeTestPolicy);
    const { report, chargedUnits } = await runSmokeTest(deps.memory, scope, req.requestId);
    noteForRecord(req, { state: report.outcome, ...chargedNote(chargedUnits) });
    if (report.outcome === 'passed') {
      res.json(report);
      return;
    }
    const failed = report.steps.find((s) => s.outcome === 'failed');
    res.status(503).json({
      ...report,
      error: `The smoke test failed at its ${failed?.step ?? 'first'} step`,
      retryable: true,
      details: { code: 'service_unavailable', request_id: req.requestId },
    });
  });
  return router;
}
