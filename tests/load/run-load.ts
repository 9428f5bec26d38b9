import autocannon from 'autocannon';

export interface LoadRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  /** A fresh body (and extra headers) for every request. */
  next?: () => { body: string; headers?: Record<string, string> };
  /** True when a 2xx response body is what the scenario wanted (e.g. a write was retained). */
  accept?: (body: string) => boolean;
}

export interface LoadOptions {
  baseUrl: string;
  connections: number;
  /** Seconds; ignored when `amount` is set. */
  duration?: number;
  /** Stop after this many requests instead of after `duration`. */
  amount?: number;
}

export interface LoadResult {
  /** Requests answered 2xx (and accepted) per second of wall time. */
  rps: number;
  ok: number;
  rejected: number;
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
  seconds: number;
  /** Latency of the successful requests, ms. */
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/**
 * One autocannon run. Percentiles come from every successful response's own latency (autocannon's
 * summary has p97.5 but no p95), so p50/p95/p99 are exact for the run.
 */
export function runLoad(request: LoadRequest, options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  let rejected = 0;
  const headers = { 'content-type': 'application/json', ...request.headers };
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.baseUrl,
        connections: options.connections,
        ...(options.amount ? { amount: options.amount } : { duration: options.duration ?? 10 }),
        timeout: 30,
        requests: [
          {
            method: request.method,
            path: request.path,
            headers,
            setupRequest: (req) => {
              if (!request.next) return req;
              const next = request.next();
              return { ...req, body: next.body, headers: { ...req.headers, ...next.headers } };
            },
            ...(request.accept
              ? {
                  onResponse: (status: number, body: string) => {
                    if (status >= 200 && status < 300 && !request.accept?.(body)) rejected++;
                  },
                }
              : {}),
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error);
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const statusCodes = Object.fromEntries(
          Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, Number(count)]),
        );
        const ok2xx = Object.entries(statusCodes)
          .filter(([code]) => code.startsWith('2'))
          .reduce((sum, [, count]) => sum + count, 0);
        const ok = ok2xx - rejected;
        latencies.sort((a, b) => a - b);
        const at = (q: number) =>
          latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] ?? NaN;
        resolve({
          rps: ok / seconds,
          ok,
          rejected,
          non2xx: result.non2xx,
          errors: result.errors,
          statusCodes,
          seconds,
          p50: at(0.5),
          p95: at(0.95),
          p99: at(0.99),
          max: latencies.at(-1) ?? NaN,
        });
      },
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
    });
  });
}
