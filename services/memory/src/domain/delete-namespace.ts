import {
  AppError,
  CONTRACT_VERSION,
  type DeleteReceipt,
  ErrorCode,
  type MemoryDeleteMessage,
} from '@tm/contracts';
import {
  type DeletionCounts,
  deleteNamespaceStep,
  type StepSizes,
} from '../data-access/namespace-deletion.js';
import { getPrisma } from '../data-access/prisma-client.js';
import { tokenize } from './tokenize.js';

export interface DeletionLimits {
  /**
   * How long one call keeps taking steps before it answers "still in progress": well inside the
   * gateway's default 5 s deadline, so the caller hears it rather than a timeout.
   */
  budgetMs: number;
  sizes: StepSizes;
}

const LIMITS: DeletionLimits = { budgetMs: 2_500, sizes: { records: 2_000, entries: 10_000 } };
/** A step is a couple of thousand records; far more than it needs, far less than forever. */
const STEP_TIMEOUT_MS = 30_000;

/**
 * Remove exactly one namespace of the caller's tenant: records, supersession relations and
 * idempotency state. Usage already recorded stays (billing history). A namespace that fits in one
 * step (namespace-deletion.ts) goes in one transaction; a larger one in committed steps, as many as
 * fit in `limits.budgetMs` per call. A call that runs out of time answers a retryable 409 and keeps what
 * it deleted; the retry goes on from there, and the call that finishes reports the whole deletion.
 */
export async function deleteNamespace(
  msg: MemoryDeleteMessage,
  prisma = getPrisma(),
  limits = LIMITS,
): Promise<DeleteReceipt> {
  const scope = { tenantId: msg.scope.tenant_id, namespace: msg.namespace };
  const started = Date.now();
  let step: { done: boolean; counts: DeletionCounts };
  do {
    step = await prisma.$transaction((tx) => deleteNamespaceStep(tx, scope, tokenize, limits.sizes), {
      timeout: STEP_TIMEOUT_MS,
    });
  } while (!step.done && Date.now() - started < limits.budgetMs);
  if (!step.done) {
    // 409 in flight, retryable: the operation is under way. Not a 503, which the gateway's breaker
    // would count as the memory service being down.
    throw new AppError(
      ErrorCode.IdempotencyInFlight,
      `The namespace is large and is being deleted in steps (${step.counts.records} records so far); ` +
        'retry the same request to continue, and the call that finishes returns the receipt',
      { retryAfter: 1 },
    );
  }
  const { counts } = step;
  return {
    contract_version: CONTRACT_VERSION,
    operation: 'memory.delete',
    state: counts.records > 0 ? 'deleted' : 'no_data',
    request_id: msg.request_id,
    retryable: false,
    namespace: msg.namespace,
    deleted: counts.records,
    retained: 0,
    removed: { supersession_relations: counts.relations, idempotency_entries: counts.idempotency },
  };
}
