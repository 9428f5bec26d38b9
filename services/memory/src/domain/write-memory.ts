import { randomUUID } from 'node:crypto';
import {
  AppError,
  CONTRACT_VERSION,
  DECISION_VERSION,
  ErrorCode,
  type MemoryWriteMessage,
  Subjects,
  type UsageRecordedEvent,
  type WriteResponse,
} from '@tm/contracts';
import type { Prisma } from '../data-access/generated/client.js';
import { claimKey, completeEntry, findEntry } from '../data-access/idempotency-ledger.js';
import { insertRecord, insertRelations, markSuperseded } from '../data-access/memory-repository.js';
import { enqueue } from '../data-access/outbox-repository.js';
import { getPrisma } from '../data-access/prisma-client.js';
import { fingerprintWrite } from './fingerprint.js';
import { billableUsage, noUsage, provenance } from './runtime-blocks.js';
import { tokenize } from './tokenize.js';

const SURPRISE = {
  status: 'unavailable',
  reason: 'No activation, threshold, embedding size or confidence is provided',
} as const;

export interface WriteDeps {
  prisma?: ReturnType<typeof getPrisma>;
  pricingVersion: string;
  /** Called after commit so the outbox relay publishes without waiting for its next tick. */
  onCommitted?: () => void;
}

/**
 * Retain one event, exactly once per idempotency key:
 * consent missing -> not_retained, nothing stored; key seen with the same fingerprint -> the original
 * result (Replayed); with another fingerprint -> 409. The record, its supersession relations, the
 * usage outbox row and the ledger entry commit together or not at all.
 */
export async function writeMemory(msg: MemoryWriteMessage, deps: WriteDeps): Promise<WriteResponse> {
  const { scope, request_id: requestId, idempotency_key: key, body } = msg;
  const eventId = body.event.event_id ?? key;
  if (body.event.supersedes?.includes(eventId)) {
    throw new AppError(ErrorCode.ValidationFailed, 'An event cannot supersede itself', {
      fields: [{ path: 'event.supersedes', message: 'must not contain the event’s own event_id' }],
    });
  }
  if (scope.consent !== 'granted') return notRetained(msg, eventId, deps.pricingVersion);

  const fingerprint = fingerprintWrite(body, eventId);
  const prisma = deps.prisma ?? getPrisma();
  const result = await prisma
    .$transaction(
      async (tx) => {
        // Bounded wait for a concurrent holder of the same key, then a retryable answer.
        await tx.$executeRaw`SET LOCAL lock_timeout = '3s'`;
        const claimed = await claimKey(tx, {
          tenantId: scope.tenant_id,
          key,
          namespace: body.namespace,
          fingerprint,
          requestId,
        });
        if (!claimed) return replay(await findEntry(tx, scope.tenant_id, key), fingerprint, requestId);
        const response = await retain(tx, msg, eventId, deps.pricingVersion);
        await completeEntry(tx, scope.tenant_id, key, response as unknown as Prisma.InputJsonValue);
        return response;
      },
      { maxWait: 5_000, timeout: 10_000 },
    )
    .catch(rethrowLockTimeout);
  if (result.idempotency_outcome === 'Accepted') deps.onCommitted?.();
  return result;
}

async function retain(
  tx: Prisma.TransactionClient,
  msg: MemoryWriteMessage,
  eventId: string,
  pricingVersion: string,
) {
  const { scope, request_id: requestId, idempotency_key: key, body } = msg;
  const memoryId = randomUUID();
  const occurredAt = new Date(body.event.occurred_at);
  const inserted = await insertRecord(tx, {
    id: memoryId,
    tenantId: scope.tenant_id,
    userId: scope.user_id,
    namespace: body.namespace,
    eventId,
    occurredAt,
    text: body.event.content.text,
    terms: tokenize(body.event.content.text),
    source: body.event.source ?? null,
    requestId,
  });
  if (!inserted) {
    throw new AppError(
      ErrorCode.DuplicateEvent,
      'This event_id is already retained in the namespace under another idempotency key',
      {
        fields: [{ path: 'event.event_id', message: 'already retained in this namespace' }],
      },
    );
  }

  const targets = body.event.supersedes ?? [];
  const found = await markSuperseded(
    tx,
    { tenantId: scope.tenant_id, namespace: body.namespace },
    targets,
    occurredAt,
  );
  const foundByEvent = new Map(found.map((f) => [f.event_id, f.id]));
  const supersession = targets.map((target) => ({
    target_event_id: target,
    status: foundByEvent.has(target) ? ('superseded' as const) : ('unresolved' as const),
  }));
  await insertRelations(
    tx,
    supersession.map((s) => ({
      id: randomUUID(),
      tenantId: scope.tenant_id,
      namespace: body.namespace,
      supersedingEventId: eventId,
      supersedingMemoryId: memoryId,
      targetEventId: s.target_event_id,
      targetMemoryId: foundByEvent.get(s.target_event_id) ?? null,
      status: s.status,
    })),
  );

  const usageId = randomUUID();
  const usageEvent: UsageRecordedEvent = {
    usage_id: usageId,
    tenant_id: scope.tenant_id,
    user_id: scope.user_id,
    key_id: scope.key_id,
    request_id: requestId,
    operation: 'memory.write',
    namespace: body.namespace,
    units: 1,
    idempotency_key: key,
    pricing_version: pricingVersion,
    occurred_at: new Date().toISOString(),
  };
  await enqueue(tx, Subjects.memory.usageRecorded, usageEvent, usageId);

  return {
    contract_version: CONTRACT_VERSION,
    operation: 'memory.write',
    state: 'retained',
    request_id: requestId,
    original_request_id: requestId,
    retryable: false,
    idempotency_key: key,
    idempotency_outcome: 'Accepted',
    namespace: body.namespace,
    event_id: eventId,
    memory_id: memoryId,
    decision: { version: DECISION_VERSION, value: 'memorized', memorized: true },
    representation: { status: 'not_available' },
    surprise: SURPRISE,
    supersession,
    provenance: provenance(),
    usage: billableUsage(pricingVersion),
  } satisfies WriteResponse;
}

function replay(
  entry: { fingerprint: string; response: unknown; requestId: string } | null,
  fingerprint: string,
  requestId: string,
): WriteResponse {
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
  if (entry.fingerprint !== fingerprint) {
    throw new AppError(
      ErrorCode.IdempotencyConflict,
      'This idempotency key was already used for a different write; use a new key for a new event',
    );
  }
  const original = entry.response as WriteResponse;
  return {
    ...original,
    request_id: requestId,
    original_request_id: entry.requestId,
    idempotency_outcome: 'Replayed',
  };
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

function rethrowLockTimeout(err: unknown): never {
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
