import {
  jetStreamClient,
  type NatsConnection,
  publishDurable,
  runDurableConsumer,
  type StreamSettings,
} from '@tm/bus';
import { Consumers, Streams, Subjects } from '@tm/contracts';
import type { Logger } from '@tm/kit';
import type { PriceList } from '../../domain/price-list.js';
import { recordUsageBatch } from '../../domain/record-usage.js';
import { usageBatchHandler } from './usage-batch-handler.js';

/**
 * The billing side of memory's usage outbox: a durable JetStream consumer with explicit acks. A
 * message carries a relay pass's records (or, from before batching, one bare record). A fetch's
 * records are committed to the ledger, then their messages acknowledged, so a crash in between
 * redelivers them and the ledger skips what it already holds (usage id). A record that cannot be
 * charged goes to the dead-letter subject with its reason; a message is acknowledged only when each
 * of its records is in the ledger or dead-lettered, otherwise it is nak'ed and comes back whole.
 * When the ledger fails, the consumers' failure policy (libs/bus/src/jetstream/failure-policy.ts) applies: a
 * record the ledger keeps refusing on its own is dead-lettered, so it cannot stall the consumer.
 */
export function startUsageConsumer(
  nc: NatsConnection,
  deps: { prices: PriceList; batchSize: number; streamSettings: StreamSettings; logger: Logger },
) {
  const js = jetStreamClient(nc);
  const handleBatch = usageBatchHandler({
    record: (events) => recordUsageBatch(events, deps.prices),
    publishDeadLetter: (json, id) => publishDurable(js, Subjects.billing.usageDeadLetter, json, id),
    logger: deps.logger,
  });
  return runDurableConsumer(nc, {
    stream: Streams.memoryUsage,
    alsoEnsure: [Streams.billingDeadLetters],
    durable: Consumers.billingUsage,
    filterSubject: Subjects.memory.usageRecorded,
    batchSize: deps.batchSize,
    handleBatch,
    logger: deps.logger,
    streamSettings: deps.streamSettings,
  });
}
