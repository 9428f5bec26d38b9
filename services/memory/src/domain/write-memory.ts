import {
  AppError,
  CONTRACT_VERSION,
  DECISION_VERSION,
  ErrorCode,
  type MemoryWriteMessage,
  type WriteResponse,
} from '@tm/contracts';
import { prismaRunner, timeOrderedId } from '@tm/kit';
import { forgottenAt } from '../data-access/forget-repository.js';
import type { Prisma } from '../data-access/generated/client.js';
import {
  type ClaimOutcome,
  claimAndRetainOne,
  completeEntry,
  findEntry,
  isDuplicateEventRefusal,
  type RetainInput,
} from '../data-access/idempotency-ledger.js';
import { type Db, getPrisma } from '../data-access/prisma-client.js';
import { retainInSharedStatement } from '../data-access/shared-statements.js';
import { insertRelations, markSuperseded } from '../data-access/supersession-repository.js';
import { differingFields, fingerprintWrite } from './fingerprint.js';
import { billableUsage, noUsage, provenance } from './runtime-blocks.js';
import { tokenize } from './tokenize.js';
import { tokenizeV1 } from './tokenize-v1.js';
import { usageRecord } from './usage-record.js';

const SURPRISE = {
  status: 'unavailable',
  reason: 'No activation, threshold, embedding size or confidence is provided',
} as const;

type Retain = (input: RetainInput) => Promise<ClaimOutcome>;

export interface WriteDeps {
  prisma?: ReturnType<typeof getPrisma>;
  pricingVersion: string;
  /** Called after commit so the outbox relay publishes without waiting for its next tick. */
  onCommitted?: () => void;
  /** Is this tenant's namespace being deleted? A write to it is refused until the deletion ends. */
  refusesWrites?: (tenantId: string, namespace: string) => Promise<boolean>;
}

/**
 * Retain one event, exactly once per idempotency key:
 * consent missing -> not_retained, nothing stored; key seen with the same fingerprint -> the original
 * result (Replayed); with another fingerprint -> 409. The record, its supersession relations, the
 * usage outbox row and the ledger entry commit together or not at all.
 */
export async function writeMemory(msg: MemoryWriteMessage, deps: WriteDeps): Promise<WriteResponse> {
  const { scope, idempotency_key: key, body } = msg;
  const eventId = body.event.event_id ?? key;
  if (body.event.supersedes?.includes(eventId)) {
    throw new AppError(ErrorCode.ValidationFailed, 'An event cannot supersede itself', {
      fields: [{ path: 'event.supersedes', message: 'must not contain the event’s own event_id' }],
    });
  }
  if (scope.consent !== 'granted') return notRetained(msg, eventId, deps.pricingVersion);
  if (await deps.refusesWrites?.(scope.tenant_id, body.namespace)) throw namespaceBeingDeleted();

  const fingerprint = fingerprintWrite(body, eventId);
  const prisma = deps.prisma ?? getPrisma();
  const retain = (db: Db, claim: Retain) =>
    retainOnce(db, claim, msg, eventId, fingerprint, deps.pricingVersion);
  // A plain write is one self-contained statement (shared with concurrent writes); supersession needs
  // a transaction of its own around more.
  const result = await (body.event.supersedes?.length
    ? prisma.$transaction((tx) => retain(tx, (input) => claimAndRetainOne(prismaRunner(tx), input)), {
        maxWait: 5_000,
        timeout: 10_000,
      })
    : retain(prisma, retainInSharedStatement)
  ).catch(translateWriteError);
  if (result.idempotency_outcome === 'Accepted') deps.onCommitted?.();
  return result;
}

/** A write to a namespace whose deletion is still running: refused, to be retried once it has ended. */
export const namespaceBeingDeleted = () =>
  new AppError(
    ErrorCode.NamespaceBeingDeleted,
    'This namespace is being deleted; write to it again once the deletion has finished',
    { retryAfter: 1 },
  );

async function retainOnce(
  db: Db,
  claim: Retain,
  msg: MemoryWriteMessage,
  eventId: string,
  fingerprint: string,
  pricingVersion: string,
): Promise<WriteResponse> {
  const { scope, request_id: requestId, idempotency_key: key, body } = msg;
  const memoryId = timeOrderedId();
  const targets = body.event.supersedes ?? [];
  // No event time given: the moment it is retained (and a repeat without one replays, see fingerprint).
  const occurredAt = body.event.occurred_at ? new Date(body.event.occurred_at) : new Date();
  const response = acceptedResponse(msg, eventId, memoryId, pricingVersion);

  const outcome = await claim({
    record: {
      id: memoryId,
      tenantId: scope.tenant_id,
      userId: scope.user_id,
      namespace: body.namespace,
      eventId,
      occurredAt,
      text: body.event.content.text,
      terms: tokenize(body.event.content.text),
      // Posted only if the namespace still ranks by its old index (decided in the statement); 3 µs.
      legacyTerms: tokenizeV1(body.event.content.text),
      source: body.event.source ?? null,
      requestId,
    },
    idempotency: { key, fingerprint, response: response as unknown as Prisma.InputJsonValue },
    usage: usageRecord(
      {
        operation: 'memory.write',
        scope,
        requestId,
        namespace: body.namespace,
        idempotencyKey: key,
        memoryId,
        eventId,
      },
      pricingVersion,
    ),
  });
  if (outcome.fenced) throw namespaceBeingDeleted();
  if (!outcome.claimed) return replay(db, await findEntry(db, scope.tenant_id, key), msg, eventId);
  if (targets.length === 0) return response;

  response.supersession = await supersede(db, msg, eventId, memoryId, occurredAt, targets);
  await completeEntry(db, scope.tenant_id, key, response as unknown as Prisma.InputJsonValue);
  return response;
}

/** Mark found targets superseded and record one relation per target, found or not. */
async function supersede(
  tx: Db,
  msg: MemoryWriteMessage,
  eventId: string,
  memoryId: string,
  occurredAt: Date,
  targets: string[],
) {
  const scope = { tenantId: msg.scope.tenant_id, namespace: msg.body.namespace };
  const found = await markSuperseded(tx, scope, targets, occurredAt);
  const foundByEvent = new Map(found.map((f) => [f.event_id, f.id]));
  const supersession = targets.map((target) => ({
    target_event_id: target,
    status: foundByEvent.has(target) ? ('superseded' as const) : ('unresolved' as const),
  }));
  await insertRelations(
    tx,
    supersession.map((s) => ({
      id: timeOrderedId(),
      ...scope,
      supersedingEventId: eventId,
      supersedingMemoryId: memoryId,
      targetEventId: s.target_event_id,
      targetMemoryId: foundByEvent.get(s.target_event_id) ?? null,
      status: s.status,
    })),
  );
  return supersession;
}

function acceptedResponse(
  msg: MemoryWriteMessage,
  eventId: string,
  memoryId: string,
  pricingVersion: string,
): WriteResponse {
  return {
    contract_version: CONTRACT_VERSION,
    operation: 'memory.write',
    state: 'retained',
    request_id: msg.request_id,
    original_request_id: msg.request_id,
    retryable: false,
    idempotency_key: msg.idempotency_key,
    idempotency_outcome: 'Accepted',
    namespace: msg.body.namespace,
    event_id: eventId,
    memory_id: memoryId,
    decision: { version: DECISION_VERSION, value: 'memorized', memorized: true },
    representation: { status: 'not_available' },
    surprise: SURPRISE,
    supersession: [],
    provenance: provenance(),
    usage: billableUsage(pricingVersion),
  };
}

async function replay(
  db: Db,
  entry: { fingerprint: string; response: unknown; requestId: string } | null,
  msg: MemoryWriteMessage,
  eventId: string,
): Promise<WriteResponse> {
  const requestId = msg.request_id;
  if (!entry?.response) {
    // Only possible if the holder's transaction is still open after the lock wait.
    throw new AppError(
      ErrorCode.IdempotencyInFlight,
      'A write with this idempotency key is still in progress; retry shortly',
      {
        retryAfter: 1,
      },
    );
  }
  const differing = differingFields(entry.fingerprint, msg.body, eventId);
  if (differing.length > 0) throw idempotencyConflict(differing);
  const original = entry.response as WriteResponse;
  const replayed: WriteResponse = {
    ...original,
    request_id: requestId,
    original_request_id: entry.requestId,
    idempotency_outcome: 'Replayed',
  };
  // Its memory forgotten since: the key answers that, and never writes the event again.
  const forgotten = original.memory_id ? await forgottenAt(db, original.memory_id) : null;
  return forgotten ? { ...replayed, state: 'not_retained', forgotten_at: forgotten.toISOString() } : replayed;
}

/** Names the fields that differ (never their values), as `fields` like a validation refusal's. */
function idempotencyConflict(paths: string[]): AppError {
  return new AppError(
    ErrorCode.IdempotencyConflict,
    `This idempotency key was already used for a different write (${paths.join(', ')} differ${paths.length === 1 ? 's' : ''}); ` +
      'send the same write again to replay it, or use a new key for a new event',
    { fields: paths.map((path) => ({ path, message: 'differs from the write this key first recorded' })) },
  );
}

function notRetained(msg: MemoryWriteMessage, eventId: string, pricingVersion: string): WriteResponse {
  return {
    contract_version: CONTRACT_VERSION,
    operation: 'memory.write',
    state: 'not_retained',
    request_id: msg.request_id,
    original_request_id: msg.request_id,
    retryable: false,
    idempotency_key: msg.idempotency_key,
    idempotency_outcome: 'Accepted',
    namespace: msg.body.namespace,
    event_id: eventId,
    memory_id: null,
    decision: {
      version: DECISION_VERSION,
      value: 'not_retained',
      memorized: false,
      reason: 'private_memory_consent_missing',
    },
    representation: { status: 'not_available' },
    surprise: SURPRISE,
    supersession: [],
    provenance: provenance(),
    usage: noUsage(pricingVersion),
  };
}

function translateWriteError(err: unknown): never {
  if (isDuplicateEventRefusal(err)) {
    throw new AppError(
      ErrorCode.DuplicateEvent,
      'This event_id is already retained in the namespace under another idempotency key',
      {
        fields: [{ path: 'event.event_id', message: 'already retained in this namespace' }],
      },
    );
  }
  const text = String((err as { message?: unknown })?.message ?? '');
  if (/lock timeout|55P03/.test(text) || (err as { cause?: { code?: string } })?.cause?.code === '55P03') {
    throw new AppError(
      ErrorCode.IdempotencyInFlight,
      'A write with this idempotency key is still in progress; retry shortly',
      {
        retryAfter: 1,
        cause: err,
      },
    );
  }
  throw err;
}
