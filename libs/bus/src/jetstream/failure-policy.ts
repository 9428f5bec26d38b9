import type { JsMsg } from '@nats-io/jetstream';
import { isStorageUnavailable } from '@tm/kit';
import type { Logger } from 'pino';

/**
 * What a durable consumer that stores what it receives (billing's usage ledger, telemetry's request
 * records) does when storing fails. A fetch is stored together. When storage is down, every message
 * comes back: nothing is wrong with them. Any other failure stores each part alone, so one the store
 * refuses cannot hold back the rest. A part refused alone is dead-lettered only on its message's last
 * delivery; before that the refusal may be a passing one, and the message comes back after a delay.
 */
export interface FailurePolicy {
  /** Deliveries a part may be refused on by itself before it is dead-lettered. */
  readonly maxDeliveries: number;
  /** How long a nak'ed message waits before it is delivered again. */
  readonly redeliveryDelayMs: number;
}

export const FAILURE_POLICY: FailurePolicy = { maxDeliveries: 3, redeliveryDelayMs: 1_000 };

export interface FetchStore<T> {
  /** What the parts are, for the log ("usage records"). */
  what: string;
  /** The message a part came in: a record of a batch message, or the message itself. */
  messageOf: (part: T) => JsMsg;
  /** Store every part at once; resolves to the messages that must come back anyway, if any. */
  together: (parts: T[]) => Promise<Iterable<JsMsg> | undefined>;
  /**
   * Store one part alone; on `lastDelivery` a part the store refuses is dead-lettered instead of
   * retried. Resolves false when its message must come back; a throw is logged and does the same.
   */
  alone: (part: T, lastDelivery: boolean) => Promise<boolean>;
  logger: Logger;
}

/** Store a fetch's parts as the policy says; resolves to the messages that must come back. */
export async function storeFetch<T>(
  parts: T[],
  store: FetchStore<T>,
  policy: FailurePolicy = FAILURE_POLICY,
): Promise<Set<JsMsg>> {
  const unsettled = new Set<JsMsg>();
  try {
    for (const msg of (await store.together(parts)) ?? []) unsettled.add(msg);
  } catch (err) {
    if (isStorageUnavailable(err)) {
      store.logger.warn({ err, parts: parts.length }, `${store.what} not stored; redelivering`);
      for (const part of parts) unsettled.add(store.messageOf(part));
      return unsettled;
    }
    store.logger.warn({ err, parts: parts.length }, `${store.what} not stored together; storing one by one`);
    for (const part of parts) {
      const msg = store.messageOf(part);
      try {
        if (!(await store.alone(part, isLastDelivery(msg, policy)))) unsettled.add(msg);
      } catch (err) {
        store.logger.warn({ err, stream_sequence: msg.seq }, `${store.what} not stored; redelivering`);
        unsettled.add(msg);
      }
    }
  }
  return unsettled;
}

/** Acknowledge a fetch's messages but the unsettled, which are nak'ed to come back after the delay. */
export function settleFetch(
  msgs: readonly JsMsg[],
  unsettled: ReadonlySet<JsMsg>,
  policy: FailurePolicy = FAILURE_POLICY,
): void {
  for (const msg of msgs) {
    if (unsettled.has(msg)) msg.nak(policy.redeliveryDelayMs);
    else msg.ack();
  }
}

/** Whether a refusal on this delivery is the part's fault for good, so the part is dead-lettered. */
export const isLastDelivery = (msg: JsMsg, policy: FailurePolicy = FAILURE_POLICY) =>
  msg.info.deliveryCount >= policy.maxDeliveries;

/** Whether a part that failed alone with `err` is dead-lettered: storage is up and retries are spent. */
export const refusedForGood = (err: unknown, lastDelivery: boolean) =>
  lastDelivery && !isStorageUnavailable(err);

/** The gist of a (possibly multi-line) database error, for a dead letter's reason. */
export const failureGist = (err: unknown) =>
  (err instanceof Error ? err.message : String(err)).trim().split('\n').at(-1)?.trim() ?? '';
