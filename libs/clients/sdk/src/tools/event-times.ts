import type { WriteInput } from '../families/memory.js';

/**
 * The event time each `event_id` (the write's idempotency key) was first sent with, so a remember
 * retried with the same event_id and no `occurred_at` sends the same time again. The service compares
 * a repeated key's whole write, event time included (services/memory/src/domain/fingerprint.ts):
 * without this, the SDK's default (now) would make a model's retried call an `idempotency_conflict`
 * instead of `Replayed`.
 *
 * One per tool set (memoryTools() in LangChain and the AI SDK, one per MCP server) and in process
 * memory: it covers retries within one agent run or server process; across processes (and over the
 * gateway's stateless /mcp, a server per request) the model or the app has to give `occurred_at` with
 * the event_id, as the tool's description says. Bounded, oldest first out: an event_id retried after 1,000 newer ones is rare.
 */
export class EventTimes {
  private readonly times = new Map<string, string>();

  constructor(private readonly capacity = 1_000) {}

  /** The time to send for this event_id: the one given, else the one sent first, else now. */
  timeFor(eventId: string, given: string | undefined): string {
    const time = given ?? this.times.get(eventId) ?? new Date().toISOString();
    if (!this.times.has(eventId)) {
      this.times.set(eventId, time);
      if (this.times.size > this.capacity) this.times.delete(this.times.keys().next().value as string);
    }
    return time;
  }
}

/** `remember`'s arguments, as every adapter's schema gives them (namespace resolved by the adapter). */
export interface RememberArguments {
  text: string;
  event_id?: string | undefined;
  occurred_at?: string | undefined;
  supersedes?: string[] | undefined;
}

/**
 * The write a `remember` call sends: `event_id` is also the idempotency key, and with one the event
 * time is the given one, else the one this tool set first sent for it (`times`), else now.
 */
export function rememberWrite(namespace: string, args: RememberArguments, times: EventTimes): WriteInput {
  const { text, event_id: eventId, occurred_at: occurredAt, supersedes } = args;
  return {
    namespace,
    text,
    ...(eventId !== undefined
      ? { idempotency_key: eventId, event_id: eventId, occurred_at: times.timeFor(eventId, occurredAt) }
      : occurredAt !== undefined
        ? { occurred_at: occurredAt }
        : {}),
    ...(supersedes !== undefined ? { supersedes } : {}),
  };
}
