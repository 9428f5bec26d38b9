import { z } from 'zod';

/**
 * What every outbox relay publishes (libs/bus outbox-relay.ts): the records of one relay pass for one
 * subject, in one JetStream message. Each service's outbox rows (memory's usage records and events,
 * the template, telemetry and billing events) travel in it; the records are the subject's own
 * contract and are checked one by one, so a bad record is skipped or dead-lettered without refusing
 * its neighbours. A message that is one bare record (memory's usage, as published before batching)
 * is still accepted.
 */
export const OutboxBatch = z.object({
  version: z.literal('v1'),
  records: z.array(z.unknown()).min(1),
});
export type OutboxBatch = z.infer<typeof OutboxBatch>;

/** A batch message built from the records' stored JSON texts, without parsing them. */
export const outboxBatchText = (recordTexts: string[]) =>
  `{"version":"v1","records":[${recordTexts.join(',')}]}`;

/**
 * The records a message carries, and whether it was a batch (its records are then addressed by
 * index). `undefined` when the message claims to be a batch (it has `records`) but is not a valid one.
 */
export function outboxRecordsIn(message: unknown): { records: unknown[]; batch: boolean } | undefined {
  if (message === null || typeof message !== 'object' || !('records' in message)) {
    return { records: [message], batch: false };
  }
  const parsed = OutboxBatch.safeParse(message);
  return parsed.success ? { records: parsed.data.records, batch: true } : undefined;
}
