import { enqueueOutbox } from '@tm/bus';
import {
  AppError,
  CONTRACT_VERSION,
  ErrorCode,
  FORGET_OPERATION,
  type ForgetReceipt,
  type MemoryDeletedEvent,
  type MemoryForgetMessage,
  Subjects,
  UUID_PATTERN,
} from '@tm/contracts';
import { prismaRunner, retryOnConflict, timeOrderedId } from '@tm/kit';
import {
  countForgotten,
  deleteOwnRelations,
  deletePostings,
  deleteRecord,
  findTombstone,
  insertTombstone,
  lockRecord,
  resupersede,
  unresolveRelationsTo,
} from '../data-access/forget-repository.js';
import type { Prisma } from '../data-access/generated/client.js';
import { isBeingDeleted } from '../data-access/namespace-deletion.js';
import { getPrisma, getSql } from '../data-access/prisma-client.js';
import { tokenize } from './tokenize.js';
import { tokenizeV1 } from './tokenize-v1.js';

const notFound = () => new AppError(ErrorCode.NotFound, 'No such memory');

/** What a tombstone keeps of the receipt: no text, no event id. */
type Kept = Pick<ForgetReceipt, 'namespace' | 'removed' | 'unresolved_relations' | 'reinstated'>;

/**
 * Forget one memory of the caller's tenant, as if it had never been written: its record and
 * postings go, the relations its event recorded go (a record only it superseded is current again), and
 * relations of later events that superseded it stay, unresolved. One transaction. A tombstone without
 * text is kept: a repeated DELETE replays this receipt, and the write's idempotency entry (which
 * stays) replays as forgotten, so a retried write never brings the memory back. Its `memory.deleted`
 * event (the webhooks service's) is an outbox row of the same transaction.
 * Not found: another tenant's id, an unknown one, and a record whose namespace is being deleted.
 */
export async function forgetMemory(
  msg: MemoryForgetMessage,
  deps: { onCommitted?: () => void } = {},
  db = getPrisma(),
): Promise<ForgetReceipt> {
  if (!UUID_PATTERN.test(msg.memory_id)) throw notFound();
  const memoryId = msg.memory_id.toLowerCase();
  const tenantId = msg.scope.tenant_id;
  // Forgetting locks the record, then what it superseded; a write superseding both may take them the
  // other way round, and PostgreSQL then rolls one back (a deadlock): this side runs again.
  const outcome = await retryOnConflict(() =>
    db.$transaction(
      async (tx) => {
        const record = await lockRecord(tx, tenantId, memoryId);
        if (!record) return null;
        if (await isBeingDeleted(getSql(), tenantId, record.namespace)) throw notFound();
        const postings = await deletePostings(tx, tenantId, record, {
          terms: tokenize(record.text),
          legacyTerms: tokenizeV1(record.text),
        });
        const own = await deleteOwnRelations(tx, memoryId);
        const unresolved = await unresolveRelationsTo(tx, memoryId);
        await deleteRecord(tx, memoryId);
        const reinstated = await resupersede(tx, own.targets);
        const kept: Kept = {
          namespace: record.namespace,
          removed: { postings, supersession_relations: own.count },
          unresolved_relations: unresolved,
          reinstated,
        };
        const forgottenAt = await insertTombstone(tx, {
          memoryId,
          tenantId,
          namespace: record.namespace,
          requestId: msg.request_id,
          receipt: kept as unknown as Prisma.InputJsonValue,
        });
        // Its memory.deleted event commits with it (webhooks): ids only, never text.
        const eventId = timeOrderedId();
        await enqueueOutbox(
          prismaRunner(tx),
          Subjects.memory.memoryDeleted,
          {
            event_id: eventId,
            tenant_id: tenantId,
            memory_id: memoryId,
            namespace: record.namespace,
            reinstated,
            request_id: msg.request_id,
            occurred_at: forgottenAt.toISOString(),
          } satisfies MemoryDeletedEvent,
          eventId,
        );
        await countForgotten(tx, tenantId, record.namespace);
        return receipt(msg, memoryId, kept, msg.request_id, forgottenAt, 'Accepted');
      },
      { maxWait: 5_000, timeout: 10_000 },
    ),
  );
  if (outcome) {
    deps.onCommitted?.();
    return outcome;
  }
  // Not there: forgotten before (the same receipt again), or never this tenant's.
  const tomb = await findTombstone(db, tenantId, memoryId);
  if (!tomb) throw notFound();
  return receipt(
    msg,
    memoryId,
    tomb.receipt as unknown as Kept,
    tomb.requestId,
    tomb.forgottenAt,
    'Replayed',
  );
}

function receipt(
  msg: MemoryForgetMessage,
  memoryId: string,
  kept: Kept,
  originalRequestId: string,
  forgottenAt: Date,
  outcome: ForgetReceipt['idempotency_outcome'],
): ForgetReceipt {
  return {
    contract_version: CONTRACT_VERSION,
    operation: FORGET_OPERATION,
    state: 'not_retained',
    request_id: msg.request_id,
    original_request_id: originalRequestId,
    retryable: false,
    idempotency_outcome: outcome,
    memory_id: memoryId,
    namespace: kept.namespace,
    deleted: 1,
    retained: 0,
    removed: kept.removed,
    unresolved_relations: kept.unresolved_relations,
    reinstated: kept.reinstated,
    forgotten_at: forgottenAt.toISOString(),
  };
}
