import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Streams, UsageRecordedEvent } from '@tm/contracts';
import { inject } from 'vitest';

/**
 * Every usage record in the stream for one tenant, read from the start. The outbox keeps a row only
 * until JetStream has it, so the stream is where "recorded once" is checked (after a flush).
 */
export async function usageInStream(tenantId: string) {
  const nc = await connect({ servers: inject('stack').natsUrl });
  try {
    const jsm = await jetstreamManager(nc);
    const { state } = await jsm.streams.info(Streams.memoryUsage.name);
    // The whole stream (it holds only usage records); filter_subjects needs a newer server than 2.9.
    const consumer = await jetstream(nc).consumers.get(Streams.memoryUsage.name);
    const records: UsageRecordedEvent[] = [];
    for (let seen = 0; seen < state.messages; ) {
      const batch = await consumer.fetch({ max_messages: 500, expires: 2_000 });
      let got = 0;
      for await (const m of batch) {
        got++;
        const record = UsageRecordedEvent.parse(m.json());
        if (record.tenant_id === tenantId) records.push(record);
      }
      if (got === 0) break;
      seen += got;
    }
    return records;
  } finally {
    await nc.close();
  }
}

export const usageRecordsForKey = async (tenantId: string, idempotencyKey: string) =>
  (await usageInStream(tenantId)).filter((r) => r.idempotency_key === idempotencyKey).length;
