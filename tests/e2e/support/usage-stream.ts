import { outboxRecordsIn, Streams, UsageRecordedEvent } from '@tm/contracts';
import { streamMessages } from './stream-reader.js';

/** Every message of the usage stream, read from the start, as the records it carries. */
export async function usageMessages() {
  return (await streamMessages(Streams.memoryUsage.name)).map((text) => {
    const carried = outboxRecordsIn(JSON.parse(text));
    if (!carried) throw new Error(`not a usage message: ${text}`);
    return { batch: carried.batch, records: carried.records.map((r) => UsageRecordedEvent.parse(r)) };
  });
}

/**
 * Every usage record in the stream for one tenant, read from the start. The outbox keeps a row only
 * until JetStream has it, so the stream is where "recorded once" is checked (after a flush).
 */
export async function usageInStream(tenantId: string) {
  return (await usageMessages()).flatMap((m) => m.records).filter((record) => record.tenant_id === tenantId);
}

export const usageRecordsForKey = async (tenantId: string, idempotencyKey: string) =>
  (await usageInStream(tenantId)).filter((r) => r.idempotency_key === idempotencyKey).length;
