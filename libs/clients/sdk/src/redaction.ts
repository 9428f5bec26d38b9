/**
 * What an error must never repeat: the header values of the request it came from. Node's fetch quotes a
 * header value it refuses (`Headers.append: "Bearer tmk_…" is an invalid header value`), and a fetch of
 * the caller's own (a proxy, instrumentation) may quote anything it was given; the SDK's errors wrap
 * such causes, so they are copied with every such value masked before they reach a message, a stack
 * or a `cause`.
 */
export class Redaction {
  private readonly needles: string[];

  /**
   * `secrets` are masked at any length (credentials); `others` (the remaining header values) from 8
   * characters on, so that a short value such as `1` does not mask every `1` of a message.
   */
  constructor(secrets: Iterable<string | undefined>, others: Iterable<string> = []) {
    const needles = new Set<string>();
    const add = (value: string) => {
      needles.add(value);
      // As JSON quotes it, which is how Node's errors show a value with a line break in it.
      needles.add(JSON.stringify(value).slice(1, -1));
    };
    for (const value of secrets) if (value) add(value);
    for (const value of others) if (value.length >= 8) add(value);
    // Longest first, so `Bearer <key>` is masked whole before `<key>` alone.
    this.needles = [...needles].filter(Boolean).sort((a, b) => b.length - a.length);
  }

  text(text: string): string {
    let out = text;
    for (const needle of this.needles) out = out.split(needle).join('[redacted]');
    return out;
  }

  /**
   * A copy of `error` with every string it carries masked: message, stack, its own string fields
   * (`code`, `syscall`, …), and the same for its causes and, for an AggregateError, its errors.
   * Anything else a cause holds (objects, functions) is left out of the copy.
   */
  error(error: unknown, depth = 0): unknown {
    if (typeof error === 'string') return this.text(error);
    if (!(error instanceof Error))
      return typeof error === 'object' || typeof error === 'function' ? undefined : error;
    const copy = new Error(this.text(error.message)) as Error & Record<string, unknown>;
    copy.name = error.name;
    copy.stack = error.stack === undefined ? undefined : this.text(error.stack);
    for (const [key, value] of Object.entries(error)) {
      if (typeof value === 'string') copy[key] = this.text(value);
      else if (typeof value === 'number' || typeof value === 'boolean') copy[key] = value;
    }
    // A cycle or a very long chain ends here: nothing below it is copied, so nothing leaks from it.
    if (depth < 8) {
      const cause = error.cause === undefined ? undefined : this.error(error.cause, depth + 1);
      if (cause !== undefined) copy.cause = cause;
      if (error instanceof AggregateError)
        copy.errors = error.errors.map((inner: unknown) => this.error(inner, depth + 1));
    }
    return copy;
  }
}
