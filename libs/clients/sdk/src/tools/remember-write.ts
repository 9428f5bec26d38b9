import type { WriteInput } from '../families/memory.js';

/** `remember`'s arguments, as every adapter's schema gives them (namespace resolved by the adapter). */
export interface RememberArguments {
  text: string;
  event_id?: string | undefined;
  occurred_at?: string | undefined;
  supersedes?: string[] | undefined;
}

/**
 * The write a `remember` call sends: `event_id` is also the idempotency key. No event time is made
 * up: without one the service uses the time it stores the write, and a retry without one replays.
 */
export function rememberWrite(namespace: string, args: RememberArguments): WriteInput {
  const { text, event_id: eventId, occurred_at: occurredAt, supersedes } = args;
  return {
    namespace,
    text,
    ...(eventId !== undefined ? { idempotency_key: eventId, event_id: eventId } : {}),
    ...(occurredAt !== undefined ? { occurred_at: occurredAt } : {}),
    ...(supersedes !== undefined ? { supersedes } : {}),
  };
}
