import { randomUUID } from 'node:crypto';
import {
  AppError,
  CONTRACT_VERSION,
  ErrorCode,
  RESERVED_NAMESPACE_PREFIX,
  type Scope,
  type SmokeTestResponse,
} from '@tm/contracts';
import type { MemoryClient } from '../../clients/memory-client.js';
import { chargedUnits } from '../data-plane/charged-units.js';

type Step = SmokeTestResponse['steps'][number];

export type SmokeTestPolicy = 'enabled' | 'disabled';

/** The configured policy; unset, smoke tests are enabled everywhere but in production. */
export const smokeTestPolicyOf = (c: {
  SMOKE_TEST_POLICY?: SmokeTestPolicy;
  DEPLOYMENT_ENVIRONMENT: string;
}): SmokeTestPolicy =>
  c.SMOKE_TEST_POLICY ?? (c.DEPLOYMENT_ENVIRONMENT === 'production' ? 'disabled' : 'enabled');

/**
 * The preconditions, in the spec's words: operator capability (checked by the caller), active consent
 * and the deployment's policy. None of them can be overridden by the request.
 */
export function checkSmokeTestAllowed(scope: Scope, policy: SmokeTestPolicy): void {
  if (policy !== 'enabled') {
    throw new AppError(ErrorCode.PolicyDenied, 'Smoke tests are disabled by this deployment’s policy');
  }
  if (scope.consent !== 'granted') {
    throw new AppError(
      ErrorCode.ConsentRequired,
      'A smoke test writes memory, which needs active private-memory consent for this key’s user',
    );
  }
}

async function timed(step: Step['step'], run: () => Promise<string>): Promise<Step> {
  const started = performance.now();
  const latency = () => Math.round((performance.now() - started) * 1000) / 1000;
  try {
    const detail = await run();
    return { step, outcome: 'passed', detail, latency_ms: latency() };
  } catch (err) {
    const detail = err instanceof AppError ? `${err.code}: ${err.message}` : 'unexpected failure';
    return { step, outcome: 'failed', detail, latency_ms: latency() };
  }
}

const fail = (detail: string): never => {
  throw new AppError(ErrorCode.Internal, detail);
};

/** The report, and the units the ledger charged for its steps (null: none), for the request record. */
export interface SmokeTestRun {
  report: SmokeTestResponse;
  chargedUnits: number | null;
}

/**
 * Write, recall and delete in a namespace of its own under the reserved prefix, through the same
 * memory service, consent check and metering as any request. The delete runs whatever happened
 * before, so nothing is left behind.
 */
export async function runSmokeTest(
  memory: MemoryClient,
  scope: Scope,
  requestId: string,
): Promise<SmokeTestRun> {
  const probe = randomUUID();
  // The write and the recall are charged like any others: the record says so, as the ledger does.
  let charged: number | null = null;
  const charge = (result: Parameters<typeof chargedUnits>[0]) => {
    const units = chargedUnits(result);
    if (units !== null) charged = (charged ?? 0) + units;
  };
  const namespace = `${RESERVED_NAMESPACE_PREFIX}${probe}`;
  const token = `probe${probe.replaceAll('-', '')}`;
  let memoryId: string | null = null;

  const write = await timed('write', async () => {
    const result = await memory.write({
      scope,
      request_id: requestId,
      idempotency_key: `smoke-${probe}`,
      body: {
        contract_version: CONTRACT_VERSION,
        namespace,
        event: { occurred_at: new Date().toISOString(), content: { text: `Smoke test ${token}` } },
      },
    });
    charge(result);
    if (result.state !== 'retained') fail(`write answered ${result.state}`);
    memoryId = result.memory_id;
    return `retained (${result.idempotency_outcome})`;
  });
  const recall: Step =
    write.outcome === 'passed'
      ? await timed('recall', async () => {
          const result = await memory.recall({
            scope,
            request_id: requestId,
            body: { contract_version: CONTRACT_VERSION, namespace, cue: { text: token }, top_k: 1 },
          });
          charge(result);
          if (!result.related.some((r) => r.memory_id === memoryId))
            fail('recall did not return the written record');
          return `${result.retrieval_outcome}, the written record ranked first`;
        })
      : { step: 'recall', outcome: 'skipped', detail: 'the write did not pass', latency_ms: null };
  const remove = await timed('delete', async () => {
    const result = await memory.delete({ scope, request_id: requestId, namespace });
    if (write.outcome === 'passed' && result.deleted !== 1) fail(`delete removed ${result.deleted} records`);
    return `${result.state}, ${result.deleted} record(s) removed`;
  });
  const steps = [write, recall, remove];
  return {
    report: {
      contract_version: CONTRACT_VERSION,
      request_id: requestId,
      outcome: steps.every((s) => s.outcome === 'passed') ? 'passed' : 'failed',
      namespace,
      steps,
      metered: true,
    },
    chargedUnits: charged,
  };
}
