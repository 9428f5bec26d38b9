import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, ErrorCode } from '@tm/contracts';

export interface HubHttpOptions {
  /** One attempt's deadline, body included. */
  timeoutMs: number;
  /** Further attempts after a 429, a 5xx (but 501), a timeout or a refused connection. */
  retries: number;
  /** First backoff; doubled per attempt, plus up to as much again of jitter. */
  retryBaseMs: number;
}

/** What the hub answered, when it is the caller's to judge (2xx, 4xx, 501). */
export interface HubAnswer {
  status: number;
  /** The JSON body, or null when there was none or it was not JSON. */
  body: unknown;
  /** The dataset viewer's `X-Error-Code` header (e.g. DatasetWithScriptNotSupportedError). */
  errorCode: string | null;
}

/** A Retry-After the hub sends is honoured up to this; a longer wait is the caller's next retry. */
const MAX_RETRY_AFTER_MS = 10_000;

/**
 * GETs one hub URL, retrying what a retry can mend: 429 and 5xx answers (501, "not implemented for
 * this dataset", is an answer), timeouts and refused connections, with exponential backoff and
 * jitter, honouring Retry-After. The token goes in the Authorization header only: never in the URL,
 * an error message or a log line. Past the retries (or `deadline`, epoch ms) the hub is unavailable:
 * a retryable 503 `hub_unavailable`, or 504 `hub_timeout` when the last attempt timed out.
 */
export async function hubGet(
  url: URL,
  token: string | undefined,
  options: HubHttpOptions & { deadline?: number },
): Promise<HubAnswer> {
  const deadline = options.deadline ?? Number.POSITIVE_INFINITY;
  const what = `${url.host}${url.pathname}`;
  let failure: AppError | undefined;
  /** The wait the hub asked for with Retry-After on its last answer, if it did. */
  let askedWaitMs: number | undefined;
  for (let attempt = 0; attempt <= options.retries; attempt += 1) {
    if (attempt > 0) {
      const wait = askedWaitMs ?? options.retryBaseMs * 2 ** (attempt - 1) * (1 + Math.random());
      if (Date.now() + wait >= deadline) break;
      await sleep(wait);
    }
    const timeoutMs = Math.min(options.timeoutMs, deadline - Date.now());
    if (timeoutMs <= 0) break;
    try {
      const res = await fetch(url, {
        headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      if (res.status === 429 || (res.status >= 500 && res.status !== 501)) {
        const header = res.headers.get('retry-after');
        const retryAfter = header === null ? Number.NaN : Number(header);
        askedWaitMs =
          Number.isFinite(retryAfter) && retryAfter >= 0
            ? Math.min(retryAfter * 1000, MAX_RETRY_AFTER_MS)
            : undefined;
        failure = new AppError(ErrorCode.HubUnavailable, `The model hub answered ${res.status} (${what})`, {
          retryAfter: Math.max(1, Math.ceil((askedWaitMs ?? 2_000) / 1000)),
        });
        continue;
      }
      return { status: res.status, body: parseJson(text), errorCode: res.headers.get('x-error-code') };
    } catch (err) {
      askedWaitMs = undefined;
      failure = isTimeout(err)
        ? new AppError(
            ErrorCode.HubTimeout,
            `The model hub did not answer within ${timeoutMs} ms (${what})`,
            {
              retryAfter: 2,
              cause: err,
            },
          )
        : new AppError(ErrorCode.HubUnavailable, `The model hub could not be reached (${what})`, {
            retryAfter: 2,
            cause: err,
          });
    }
  }
  throw (
    failure ??
    new AppError(ErrorCode.HubTimeout, `The model hub did not answer in time (${what})`, { retryAfter: 2 })
  );
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const isTimeout = (err: unknown) =>
  err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
