import { bearer } from './memory-api.js';

export interface JsonAnswer<T> {
  status: number;
  body: T;
}

/** Sends in all: a 429 or 503 past this is a stack that is not coming back within the run. */
const ATTEMPTS = 10;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * POST a JSON body with the key and read the JSON answer, sending the same body again while the stack
 * says "later": a 429 after its Retry-After, a 503, a 504 or a lost connection after a growing
 * pause. Only for calls that are safe to repeat (idempotent writes, recalls). Any other answer, 2xx or
 * not, is the caller's to judge.
 */
export async function postJson<T>(
  url: string,
  apiKey: string,
  body: unknown,
  attempts = ATTEMPTS,
): Promise<JsonAnswer<T>> {
  const payload = JSON.stringify(body);
  let last = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { ...bearer(apiKey), 'content-type': 'application/json' },
        body: payload,
        signal: AbortSignal.timeout(60_000),
      });
    } catch (err) {
      last = (err as Error).message;
      await pause(500 * attempt);
      continue;
    }
    if (res.status !== 429 && res.status !== 503 && res.status !== 504) {
      const text = await res.text();
      try {
        return { status: res.status, body: JSON.parse(text) as T };
      } catch {
        throw new Error(`POST ${url} answered ${res.status} with no JSON: ${text.slice(0, 200)}`);
      }
    }
    last = `${res.status} ${(await res.text()).slice(0, 200)}`;
    const retryAfter = Number(res.headers.get('retry-after'));
    await pause(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1_000 : 500 * attempt);
  }
  throw new Error(`POST ${url} still failing after ${attempts} attempts: ${last}`);
}
