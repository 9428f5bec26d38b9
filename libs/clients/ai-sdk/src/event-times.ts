/**
 * The event time each idempotency key was first sent with, so a remember retried with the same key
 * and no `occurred_at` sends the same time again. The service compares a repeated key's whole write,
 * event time included (services/memory/src/domain/fingerprint.ts): without this, the SDK's default
 * (now) would make a model's retried call an `idempotency_conflict` instead of `Replayed`.
 *
 * Per memoryTools() instance and in process memory: it covers retries within one agent run or server
 * process; across processes the model (or the app) has to give `occurred_at` with the key, as the
 * tool's description says. Bounded, oldest first out: a key retried after 1,000 newer ones is rare.
 */
export class EventTimes {
  private readonly times = new Map<string, string>();

  constructor(private readonly capacity = 1_000) {}

  /** The time to send for this key: the one given, else the one sent first, else now. */
  timeFor(key: string, given: string | undefined): string {
    const time = given ?? this.times.get(key) ?? new Date().toISOString();
    if (!this.times.has(key)) {
      this.times.set(key, time);
      if (this.times.size > this.capacity) this.times.delete(this.times.keys().next().value as string);
    }
    return time;
  }
}
