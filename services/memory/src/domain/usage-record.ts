import { type Scope, Subjects, type UsageRecordedEvent } from '@tm/contracts';
import { timeOrderedId } from '@tm/kit';

/** What a billable memory operation is recorded for: one unit of `operation`, by this request. */
export interface BilledOperation {
  operation: UsageRecordedEvent['operation'];
  scope: Scope;
  requestId: string;
  namespace: string;
  /** A write's key, so billing charges a retried write once. */
  idempotencyKey?: string;
  /** A write's record and event: the webhooks service announces them as memory.retained. */
  memoryId?: string;
  eventId?: string;
}

/**
 * The usage record of one billable write or recall, as the outbox row that publishes it on
 * memory.usage.recorded: written with what it bills (the record, the ranking), so billing sees
 * exactly the operations that happened. The usage id is the row's id and the message id.
 */
export function usageRecord(billed: BilledOperation, pricingVersion: string) {
  const usageId = timeOrderedId();
  const payload: UsageRecordedEvent = {
    usage_id: usageId,
    tenant_id: billed.scope.tenant_id,
    user_id: billed.scope.user_id,
    key_id: billed.scope.key_id,
    request_id: billed.requestId,
    operation: billed.operation,
    namespace: billed.namespace,
    units: 1,
    ...(billed.idempotencyKey !== undefined ? { idempotency_key: billed.idempotencyKey } : {}),
    pricing_version: pricingVersion,
    occurred_at: new Date().toISOString(),
    ...(billed.memoryId !== undefined ? { memory_id: billed.memoryId } : {}),
    ...(billed.eventId !== undefined ? { event_id: billed.eventId } : {}),
  };
  return { id: usageId, subject: Subjects.memory.usageRecorded, payload };
}
