import { TextMemoryError } from './errors.js';

/** The spec's client defaults (timeout 30, max_retries 2), with backoff bounds of our choosing. */
export interface RetryOptions {
  /** Per attempt, from sending to the end of the answer's body (headers only for streamed bodies). Default 30,000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 2 (three attempts in all). */
  maxRetries?: number;
  /** First backoff ceiling; attempt n waits a random time in [0, min(backoffMaxMs, backoffBaseMs · 2ⁿ)]. Default 500. */
  backoffBaseMs?: number;
  /** Largest backoff ceiling. Default 8,000. */
  backoffMaxMs?: number;
  /** A server's Retry-After is honoured up to this. Default 30,000. */
  retryAfterMaxMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  timeoutMs: 30_000,
  maxRetries: 2,
  backoffBaseMs: 500,
  backoffMaxMs: 8_000,
  retryAfterMaxMs: 30_000,
};

export function resolvePolicy(...layers: Array<RetryOptions | undefined>): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY };
  for (const layer of layers) {
    for (const name of Object.keys(policy) as Array<keyof RetryPolicy>) {
      const value = layer?.[name];
      if (value !== undefined) policy[name] = value;
    }
  }
  return policy;
}

/**
 * Whether a failed attempt is tried again (attempt counts from 0).
 * - An answer is retried only when it is retryable (`retryable: true`, or 429/503/504 without a body
 *   saying so): never a 400, 401, 403, 404 or plain 409; 409 `idempotency_in_flight` says retryable.
 *   A 504 means the server may have done the work, so it is retried only when the call is safe to
 *   repeat, as are connection failures and timeouts.
 * - Safe to repeat: GETs, writes carrying an idempotency key, and calls the API documents as idempotent.
 */
export function shouldRetry(
  error: TextMemoryError,
  attempt: number,
  policy: RetryPolicy,
  safe: boolean,
): boolean {
  if (attempt >= policy.maxRetries) return false;
  if (error.code === 'aborted' || error.code === 'validation_failed') return false;
  if (error.status === 0) return safe && (error.code === 'connection_failed' || error.code === 'timeout');
  if (!error.retryable) return false;
  return error.status === 504 ? safe : true;
}

/** Retry-After (seconds or an HTTP date) in ms, capped; undefined when absent or unreadable. */
export function retryAfterMs(
  header: string | null,
  policy: RetryPolicy,
  now = Date.now(),
): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  const ms = /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(0, ms), policy.retryAfterMaxMs);
}

/** Exponential backoff with full jitter: spreads the retries of many clients hit by one outage. */
export function backoffMs(attempt: number, policy: RetryPolicy, random = Math.random): number {
  const ceiling = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/** Wait, unless the signal aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function abortedError(signal?: AbortSignal, attempts = 0): TextMemoryError {
  return new TextMemoryError({
    status: 0,
    error: 'The request was aborted',
    code: 'aborted',
    retryable: false,
    attempts,
    cause: signal?.reason,
  });
}
