import {
  type JsMsg,
  jetStreamClient,
  type NatsConnection,
  publishDurable,
  runDurableConsumer,
} from '@tm/bus';
import { Consumers, Streams, Subjects, type UsageDeadLetter, UsageRecordedEvent } from '@tm/contracts';
import { isStorageUnavailable, type Logger } from '@tm/kit';
import type { PriceList } from '../../domain/price-list.js';
import { recordUsageBatch } from '../../domain/record-usage.js';

const RETRY_MS = 1_000;
/** Deliveries a record may fail on by itself before it is dead-lettered. */
const MAX_DELIVERIES = 3;

/** The gist of a (possibly multi-line) database error, for a dead letter's reason. */
const lastLine = (err: unknown) =>
  (err instanceof Error ? err.message : String(err)).trim().split('\n').at(-1)?.trim().slice(0, 300) ?? '';

/**
 * The billing side of memory's usage outbox: a durable JetStream consumer with explicit acks. A
 * batch is committed to the ledger, then acknowledged, so a crash in between redelivers it and the
 * ledger skips what it already holds (usage id). A message that cannot be charged goes to the
 * dead-letter subject with its reason before it is acknowledged; if that publish fails, it is not
 * acknowledged and comes back. A ledger failure naks the batch for redelivery when storage is
 * unavailable; otherwise the batch is recorded one by one, and a record that the ledger keeps
 * refusing on its own is dead-lettered, so it cannot stall the consumer.
 */
export function startUsageConsumer(
  nc: NatsConnection,
  deps: { prices: PriceList; batchSize: number; logger: Logger },
) {
  const { logger } = deps;
  const js = jetStreamClient(nc);

  async function deadLetter(msg: JsMsg, reason: string): Promise<void> {
    const letter: UsageDeadLetter = {
      stream_sequence: msg.seq,
      subject: msg.subject,
      reason,
      payload: msg.string(),
      dead_lettered_at: new Date().toISOString(),
    };
    await publishDurable(js, Subjects.billing.usageDeadLetter, JSON.stringify(letter), `usage-${msg.seq}`);
    logger.warn({ stream_sequence: msg.seq, reason }, 'usage record dead-lettered');
  }

  async function handleBatch(msgs: JsMsg[]): Promise<void> {
    const valid: Array<{ msg: JsMsg; event: UsageRecordedEvent }> = [];
    for (const msg of msgs) {
      let parsed: ReturnType<typeof UsageRecordedEvent.safeParse> | undefined;
      try {
        parsed = UsageRecordedEvent.safeParse(msg.json());
      } catch {
        parsed = undefined;
      }
      if (parsed?.success) valid.push({ msg, event: parsed.data });
      else await settleDeadLetter(msg, parsed ? 'not a usage record (schema)' : 'not JSON');
    }
    if (valid.length === 0) return;
    try {
      await record(valid);
    } catch (err) {
      if (isStorageUnavailable(err)) {
        logger.warn({ err, batch: valid.length }, 'usage batch not recorded; redelivering');
        for (const { msg } of valid) msg.nak(RETRY_MS);
        return;
      }
      // One record the ledger will not take must not hold back the rest of its batch forever.
      logger.warn({ err, batch: valid.length }, 'usage batch not recorded; recording one by one');
      for (const entry of valid) await recordAlone(entry);
    }
  }

  async function record(entries: Array<{ msg: JsMsg; event: UsageRecordedEvent }>): Promise<void> {
    const { refused } = await recordUsageBatch(
      entries.map((e) => e.event),
      deps.prices,
    );
    const refusedIds = new Map(refused.map((r) => [r.event.usage_id, r.reason]));
    for (const { msg, event } of entries) {
      const reason = refusedIds.get(event.usage_id);
      if (reason) await settleDeadLetter(msg, reason);
      else msg.ack();
    }
  }

  /** A record that fails alone on several deliveries is the record's fault, not a passing one. */
  async function recordAlone(entry: { msg: JsMsg; event: UsageRecordedEvent }): Promise<void> {
    try {
      await record([entry]);
    } catch (err) {
      if (!isStorageUnavailable(err) && entry.msg.info.deliveryCount >= MAX_DELIVERIES) {
        await settleDeadLetter(entry.msg, `the ledger refused the record: ${lastLine(err)}`);
      } else {
        logger.warn({ err, stream_sequence: entry.msg.seq }, 'usage record not recorded; redelivering');
        entry.msg.nak(RETRY_MS);
      }
    }
  }

  async function settleDeadLetter(msg: JsMsg, reason: string): Promise<void> {
    try {
      await deadLetter(msg, reason);
      msg.ack();
    } catch (err) {
      logger.warn({ err }, 'dead letter not published; the record will be redelivered');
      msg.nak(RETRY_MS);
    }
  }

  return runDurableConsumer(nc, {
    stream: Streams.memoryUsage,
    alsoEnsure: [Streams.billingDeadLetters],
    durable: Consumers.billingUsage,
    filterSubject: Subjects.memory.usageRecorded,
    batchSize: deps.batchSize,
    handleBatch,
    logger,
    retryMs: RETRY_MS,
  });
}
