import client from 'prom-client';

export { client as prom };

let started = false;

/**
 * The process's metrics: prom-client's default registry, every series labelled with the service, and
 * Node's own (CPU, memory, event-loop lag, GC) under the `tm_` prefix. Metrics are defined once per
 * process at module level, so instances sharing a process (tests) share them.
 */
export function startProcessMetrics(service: string): void {
  if (started) return;
  started = true;
  client.register.setDefaultLabels({ service });
  client.collectDefaultMetrics({ prefix: 'tm_' });
}

/** Buckets for request and handling times, in seconds: 1 ms to 10 s. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * A figure read at scrape time from somewhere that may not answer (a database, JetStream): at most
 * `timeoutMs`, and on failure or timeout the last value read, so a scrape never hangs or fails
 * because a dependency is down.
 */
export function readWithin<T>(read: () => Promise<T>, timeoutMs = 1_000): () => Promise<T | undefined> {
  let last: T | undefined;
  return async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), timeoutMs);
    });
    try {
      const value = await Promise.race([read(), timeout]);
      if (value !== undefined) last = value;
    } catch {
      // keep the last value: the dependency's own health says it is down
    } finally {
      clearTimeout(timer);
    }
    return last;
  };
}
