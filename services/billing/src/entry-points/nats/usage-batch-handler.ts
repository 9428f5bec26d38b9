import { decodeJson, failureGist, type JsMsg, refusedForGood, settleFetch, storeFetch } from '@tm/bus';
import { outboxRecordsIn, type UsageDeadLetter, UsageRecordedEvent } from '@tm/contracts';
import type { Logger } from '@tm/kit';
import type { Refused } from '../../domain/record-usage.js';

/** A record's place in a batch message and the record as received (absent for a bare record). */
type InBatch = { index: number; value: unknown } | undefined;

/** One usage record and the message that carried it. */
interface Entry {
  msg: JsMsg;
  inBatch: InBatch;
  event: UsageRecordedEvent;
}

export interface UsageBatchDeps {
  /** Charge records in one statement; those it will not charge come back refused, with a reason. */
  record: (events: UsageRecordedEvent[]) => Promise<{ refused: Refused[] }>;
  /** Publish a dead letter durably (its id deduplicates a redelivered one). */
  publishDeadLetter: (json: string, id: string) => Promise<unknown>;
  logger: Logger;
}

/** What the consumer does with each fetch: charge, dead-letter, then ack or nak every message. */
export function usageBatchHandler(deps: UsageBatchDeps): (msgs: JsMsg[]) => Promise<void> {
  const { logger } = deps;

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
      await deps.publishDeadLetter(JSON.stringify(letter), id);
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

  const deadLetterEntry = (entry: Entry, reason: string) => deadLetter(entry.msg, reason, entry.inBatch);

  /** Charge entries; resolves to the messages of refused records whose dead letter was not published. */
  async function record(entries: Entry[]): Promise<JsMsg[]> {
    const { refused } = await deps.record(entries.map((e) => e.event));
    const refusedIds = new Map(refused.map((r) => [r.event.usage_id, r.reason]));
    const unsettled: JsMsg[] = [];
    for (const entry of entries) {
      const reason = refusedIds.get(entry.event.usage_id);
      if (reason && !(await deadLetterEntry(entry, reason))) unsettled.push(entry.msg);
    }
    return unsettled;
  }

  /** A record that fails alone on its last delivery is the record's fault, not a passing one. */
  async function recordAlone(entry: Entry, lastDelivery: boolean): Promise<boolean> {
    try {
      return (await record([entry])).length === 0;
    } catch (err) {
      if (refusedForGood(err, lastDelivery)) {
        return deadLetterEntry(entry, `the ledger refused the record: ${failureGist(err).slice(0, 300)}`);
      }
      logger.warn({ err, stream_sequence: entry.msg.seq }, 'usage record not recorded; redelivering');
      return false;
    }
  }

  return async (msgs) => {
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
    if (entries.length > 0) {
      const stored = await storeFetch(entries, {
        what: 'usage records',
        messageOf: (entry) => entry.msg,
        together: record,
        alone: recordAlone,
        logger,
      });
      for (const msg of stored) unsettled.add(msg);
    }
    settleFetch(msgs, unsettled);
  };
}
