import { Streams, UsageRecordedEvent } from '@tm/contracts';
import { streamMessages } from './stream-reader.js';

/**
 * Every usage record in the stream for one tenant, read from the start. The outbox keeps a row only
 * until JetStream has it, so the stream is where "recorded once" is checked (after a flush).
 */
export async function usageInStream(tenantId: string) {
  return (await streamMessages(Streams.memoryUsage.name))
    .map((text) => UsageRecordedEvent.parse(JSON.parse(text)))
    .filter((record) => record.tenant_id === tenantId);
}

export const usageRecordsForKey = async (tenantId: string, idempotencyKey: string) =>
  (await usageInStream(tenantId)).filter((r) => r.idempotency_key === idempotencyKey).length;
