import {
  decodeJson,
  type JsMsg,
  jetStreamClient,
  type NatsConnection,
  publishDurable,
  runDurableConsumer,
  type StreamSettings,
} from '@tm/bus';
import {
  Consumers,
  outboxRecordsIn,
  Streams,
  Subjects,
  type UsageDeadLetter,
  UsageRecordedEvent,
} from '@tm/contracts';
import { isStorageUnavailable, type Logger } from '@tm/kit';
import type { PriceList } from '../../domain/price-list.js';
import { recordUsageBatch } from '../../domain/record-usage.js';

const RETRY_MS = 1_000;
/** Deliveries a record may fail on by itself before it is dead-lettered. */
const MAX_DELIVERIES = 3;

/** The gist of a (possibly multi-line) database error, for a dead letter's reason. */
const lastLine = (err: unknown) =>
  (err instanceof Error ? err.message : String(err)).trim().split('\n').at(-1)?.trim().slice(0, 300) ?? '';

/** A record's place in a batch message and the record as received (absent for a bare record). */
type InBatch = { index: number; value: unknown } | undefined;

/** One usage record and the message that carried it. */
interface Entry {
  msg: JsMsg;
  inBatch: InBatch;
  event: UsageRecordedEvent;
}

/**
 * The billing side of memory's usage outbox: a durable JetStream consumer with explicit acks. A
 * message carries a relay pass's records (or, from before batching, one bare record). A fetch's
 * records are committed to the ledger, then their messages acknowledged, so a crash in between
 * redelivers them and the ledger skips what it already holds (usage id). A record that cannot be
 * charged goes to the dead-letter subject with its reason; a message is acknowledged only when each
 * of its records is in the ledger or dead-lettered, otherwise it is nak'ed and comes back whole. A
 * ledger failure naks the fetch when storage is unavailable; otherwise its records are recorded one
 * by one, and a record that the ledger keeps refusing on its own is dead-lettered, so it cannot stall
 * the consumer.
 */
export function startUsageConsumer(
  nc: NatsConnection,
  deps: { prices: PriceList; batchSize: number; streamSettings: StreamSettings; logger: Logger },
) {
  const { logger } = deps;
  const js = jetStreamClient(nc);

  /** Dead-letter a whole message, or one record of a batch (`index`); false if the publish failed. */
  async function deadLetter(msg: JsMsg, reason: string, record: InBatch) {
    const letter: UsageDeadLetter = {
      stream_sequence: msg.seq,
      ...(record && { record_index: record.index }),
      subject: msg.subject,
      reason,
      payload: record ? JSON.stringify(record.value) : msg.string(),
      dead_lettered_at: new Date().toISOString(),
    };
    const id = record ? `usage-${msg.seq}-${record.index}` : `usage-${msg.seq}`;
    try {
      await publishDurable(js, Subjects.billing.usageDeadLetter, JSON.stringify(letter), id);
      logger.warn(
        { stream_sequence: msg.seq, record_index: record?.index, reason },
        'usage record dead-lettered',
      );
      return true;
    } catch (err) {
      logger.warn({ err }, 'dead letter not published; the message will be redelivered');
      return false;
    }
  }

  async function handleBatch(msgs: JsMsg[]): Promise<void> {
    // Every message is acknowledged at the end unless one of its records could not be settled.
    const unsettled = new Set<JsMsg>();
    const entries: Entry[] = [];
    for (const msg of msgs) {
      let carried: ReturnType<typeof outboxRecordsIn>;
      let reason = 'not a usage record (schema)';
      try {
        carried = outboxRecordsIn(decodeJson(msg.data));
      } catch (err) {
        reason = err instanceof SyntaxError ? 'not JSON' : 'nested too deep';
      }
      if (!carried) {
        if (!(await deadLetter(msg, reason, undefined))) unsettled.add(msg);
        continue;
      }
      for (const [index, value] of carried.records.entries()) {
        const inBatch = carried.batch ? { index, value } : undefined;
        const parsed = UsageRecordedEvent.safeParse(value);
        if (parsed.success) entries.push({ msg, inBatch, event: parsed.data });
        else if (!(await deadLetter(msg, reason, inBatch))) unsettled.add(msg);
      }
    }
    if (entries.length > 0) await recordEntries(entries, unsettled);
    for (const msg of msgs) {
      if (unsettled.has(msg)) msg.nak(RETRY_MS);
      else msg.ack();
    }
  }

  async function recordEntries(entries: Entry[], unsettled: Set<JsMsg>): Promise<void> {
    try {
      await record(entries, unsettled);
    } catch (err) {
      if (isStorageUnavailable(err)) {
        logger.warn({ err, records: entries.length }, 'usage batch not recorded; redelivering');
        for (const { msg } of entries) unsettled.add(msg);
        return;
      }
      // One record the ledger will not take must not hold back the rest of its batch forever.
      logger.warn({ err, records: entries.length }, 'usage batch not recorded; recording one by one');
      for (const entry of entries) await recordAlone(entry, unsettled);
    }
  }

  async function record(entries: Entry[], unsettled: Set<JsMsg>): Promise<void> {
    const { refused } = await recordUsageBatch(
      entries.map((e) => e.event),
      deps.prices,
    );
    const refusedIds = new Map(refused.map((r) => [r.event.usage_id, r.reason]));
    for (const entry of entries) {
      const reason = refusedIds.get(entry.event.usage_id);
      if (reason && !(await deadLetterEntry(entry, reason))) unsettled.add(entry.msg);
    }
  }

  /** A record that fails alone on several deliveries is the record's fault, not a passing one. */
  async function recordAlone(entry: Entry, unsettled: Set<JsMsg>): Promise<void> {
    try {
      await record([entry], unsettled);
    } catch (err) {
      if (!isStorageUnavailable(err) && entry.msg.info.deliveryCount >= MAX_DELIVERIES) {
        const reason = `the ledger refused the record: ${lastLine(err)}`;
        if (!(await deadLetterEntry(entry, reason))) unsettled.add(entry.msg);
      } else {
        logger.warn({ err, stream_sequence: entry.msg.seq }, 'usage record not recorded; redelivering');
        unsettled.add(entry.msg);
      }
    }
  }

  const deadLetterEntry = (entry: Entry, reason: string) => deadLetter(entry.msg, reason, entry.inBatch);

  return runDurableConsumer(nc, {
    stream: Streams.memoryUsage,
    alsoEnsure: [Streams.billingDeadLetters],
    durable: Consumers.billingUsage,
    filterSubject: Subjects.memory.usageRecorded,
    batchSize: deps.batchSize,
    handleBatch,
    logger,
    retryMs: RETRY_MS,
    streamSettings: deps.streamSettings,
  });
}
