import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RetryEvent, TextMemory, TextMemoryError } from '../src/index.js';

// A scripted local server: each request takes the next answer from the script, so a test says exactly
// what the service does and counts what the SDK sent. Backoff is tiny so retries are quick; no test
// asserts on time.
type Answer = (req: IncomingMessage, res: ServerResponse, body: string) => void;
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let baseUrl: string;
let script: Answer[] = [];
let seen: Seen[] = [];
const API_KEY = 'tmk_testtest_0123456789012345678901234567890123456789';

const envelope =
  (status: number, code: string, retryable: boolean, extra: object = {}): Answer =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req-${seen.length}` });
    res.end(
      JSON.stringify({
        error: `failed with ${code}`,
        retryable,
        request_id: `req-${seen.length}`,
        details: { code, request_id: `req-${seen.length}` },
        ...extra,
      }),
    );
  };
const ok =
  (body: object = { ok: true }): Answer =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
/** Reads the whole request, then closes the socket without an answer: the write may have happened. */
const dropConnection: Answer = (req) => req.socket.destroy();
const never: Answer = () => {};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const answer = script.shift() ?? envelope(500, 'internal_error', false);
      answer(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  script = [];
  seen = [];
});

const retries: RetryEvent[] = [];
const client = (options: Partial<ConstructorParameters<typeof TextMemory>[0]> = {}) => {
  retries.length = 0;
  return new TextMemory({
    baseUrl,
    apiKey: API_KEY,
    backoffBaseMs: 1,
    backoffMaxMs: 5,
    onRetry: (event) => retries.push(event),
    ...options,
  });
};
const write = (tm: TextMemory, extra: object = {}) =>
  tm.memory.write({ namespace: 'ns', text: 'Alice prefers green tea', ...extra });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(TextMemoryError);
      return error as TextMemoryError;
    },
  );
const keysSent = () => seen.map((r) => r.headers['idempotency-key']);

describe('retry policy: retryable answers', () => {
  it('when a write gets 503 retryable twice, then it is sent three times with the same Idempotency-Key', async () => {
    script = [envelope(503, 'service_unavailable', true), envelope(503, 'service_unavailable', true), ok()];

    const result = await write(client());

    expect(result).toEqual({ ok: true });
    expect(seen).toHaveLength(3);
    const [first] = keysSent();
    expect(first).toMatch(/^evt_[0-9a-f-]{36}$/);
    expect(keysSent()).toEqual([first, first, first]);
    // The body carries the same key, and event_id defaults to it.
    const bodies = seen.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => [b.idempotency_key, b.event.event_id])).toEqual([
      [first, first],
      [first, first],
      [first, first],
    ]);
    expect(bodies[0]).toMatchObject({ contract_version: 'v1', operation: 'memory.write', namespace: 'ns' });
    // No event time made up: the service chooses it, so a re-run of the same call replays.
    expect(bodies[0].event).not.toHaveProperty('occurred_at');
  });

  it('when 503 keeps coming, then it stops after max_retries (2) and throws the last answer', async () => {
    script = [1, 2, 3, 4].map(() => envelope(503, 'service_unavailable', true));

    const error = await failure(write(client()));

    expect(seen).toHaveLength(3);
    expect(error).toMatchObject({ status: 503, code: 'service_unavailable', retryable: true, attempts: 3 });
  });

  it('when max_retries is set per call, then that call uses it', async () => {
    script = [1, 2, 3, 4, 5, 6].map(() => envelope(503, 'service_unavailable', true));

    await failure(client({ maxRetries: 4 }).infrastructure.status({ maxRetries: 0 }));

    expect(seen).toHaveLength(1);
  });

  it('when 429 says Retry-After, then the wait is that many seconds, capped by retryAfterMaxMs', async () => {
    script = [
      (_req, res) => {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '30' });
        res.end(
          JSON.stringify({
            error: 'slow down',
            retryable: true,
            request_id: 'r',
            details: { code: 'rate_limited', request_id: 'r' },
          }),
        );
      },
      ok(),
    ];

    await client({ retryAfterMaxMs: 3 }).memory.recall({ namespace: 'ns', query: 'tea' });

    expect(seen).toHaveLength(2);
    expect(retries.map((r) => [r.attempt, r.error.status, r.delayMs])).toEqual([[1, 429, 3]]);
  });

  it('when a write gets 409 idempotency_in_flight (retryable), then it is retried with the same key', async () => {
    script = [envelope(409, 'idempotency_in_flight', true, { idempotency_outcome: 'Retryable' }), ok()];

    await write(client(), { idempotency_key: 'my-key-1' });

    expect(keysSent()).toEqual(['my-key-1', 'my-key-1']);
  });

  it('when a write that is not safe to repeat gets 504, then it is not retried', async () => {
    script = [envelope(504, 'upstream_timeout', true), ok()];

    const error = await failure(client().control.apiKeys.create({ name: 'k' }));

    expect(seen).toHaveLength(1);
    expect(error).toMatchObject({ status: 504, attempts: 1 });
  });
});

describe('retry policy: answers never retried', () => {
  it.each([
    [400, 'validation_failed'],
    [401, 'authentication_required'],
    [403, 'permission_denied'],
    [404, 'not_found'],
  ])('when the answer is %i %s, then there is one attempt', async (status, code) => {
    script = [envelope(status, code, false), ok()];

    const error = await failure(write(client()));

    expect(seen).toHaveLength(1);
    expect(error).toMatchObject({ status, code, retryable: false, attempts: 1, request_id: 'req-1' });
  });

  it('when a write gets 409 idempotency_conflict, then it is not retried and says Conflict', async () => {
    script = [envelope(409, 'idempotency_conflict', false, { idempotency_outcome: 'Conflict' }), ok()];

    const error = await failure(write(client(), { idempotency_key: 'taken' }));

    expect(seen).toHaveLength(1);
    expect(error).toMatchObject({
      status: 409,
      code: 'idempotency_conflict',
      retryable: false,
      idempotency_outcome: 'Conflict',
      details: { code: 'idempotency_conflict', request_id: 'req-1' },
    });
  });

  it('when health answers 503 with its report, then the report is returned after one attempt, not thrown', async () => {
    const report = { status: 'unavailable', available: false, services: { memory: { available: false } } };
    script = [envelope(503, 'service_unavailable', true, report), ok()];

    const health = await client().infrastructure.health();

    expect(seen).toHaveLength(1);
    expect(health).toMatchObject({ ...report, retryable: true, details: { code: 'service_unavailable' } });
  });

  it('when a smoke test answers 503 with its failed report, then the report is returned after one attempt, not thrown', async () => {
    const report = {
      outcome: 'failed',
      namespace: 'tm-smoke-test/x',
      metered: true,
      steps: [{ step: 'write', outcome: 'failed', detail: 'service_unavailable', latency_ms: 3 }],
    };
    script = [envelope(503, 'service_unavailable', true, report), ok()];

    const result = await client().infrastructure.smokeTest({ operatorToken: 'tmo_x' });

    expect(seen).toHaveLength(1);
    expect(result).toMatchObject({ ...report, retryable: true, details: { code: 'service_unavailable' } });
    expect(retries).toEqual([]);
  });

  it('when a smoke test answers 503 without a report (it did not run), then it is retried and throws as any 503', async () => {
    script = [0, 1, 2].map(() => envelope(503, 'service_unavailable', true));

    const error = await failure(client().infrastructure.smokeTest({ operatorToken: 'tmo_x' }));

    expect(seen).toHaveLength(3);
    expect(error).toMatchObject({ status: 503, code: 'service_unavailable', retryable: true, attempts: 3 });
  });

  it('when a call fails, then neither the message nor the error holds the API key', async () => {
    script = [envelope(401, 'authentication_required', false)];

    const error = await failure(write(client()));

    expect(JSON.stringify({ ...error, message: error.message, stack: error.stack })).not.toContain(API_KEY);
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });
});

describe('retry policy: lost answers', () => {
  it('when the connection drops after a write was received, then the retry repeats it with the same key', async () => {
    script = [dropConnection, ok({ idempotency_outcome: 'Replayed' })];

    const result = await write(client());

    expect(result).toEqual({ idempotency_outcome: 'Replayed' });
    expect(seen).toHaveLength(2);
    expect(seen[0]?.body).toBe(seen[1]?.body);
    expect(keysSent()[0]).toBe(keysSent()[1]);
    expect(retries[0]?.error).toMatchObject({ status: 0, code: 'connection_failed' });
  });

  it('when the connection drops on a call that is not safe to repeat, then it is not retried', async () => {
    script = [dropConnection, ok()];

    const error = await failure(client().control.apiKeys.create({ name: 'k' }));

    expect(seen).toHaveLength(1);
    expect(error).toMatchObject({ status: 0, code: 'connection_failed', attempts: 1 });
  });

  it('when no answer comes within the timeout, then a GET is tried 1 + max_retries times', async () => {
    script = [never, never, never];

    const error = await failure(client({ timeoutMs: 50 }).infrastructure.health());

    expect(seen).toHaveLength(3);
    expect(error).toMatchObject({ status: 0, code: 'timeout', attempts: 3 });
  });
});

describe('cancelling', () => {
  it('when the signal aborts during the backoff, then no further attempt is made', async () => {
    script = [envelope(503, 'service_unavailable', true), ok()];
    const controller = new AbortController();
    const tm = client({ backoffBaseMs: 60_000, backoffMaxMs: 60_000, onRetry: () => controller.abort() });

    const error = await failure(tm.infrastructure.status({ signal: controller.signal }));

    expect(error).toMatchObject({ status: 0, code: 'aborted', retryable: false });
    expect(seen).toHaveLength(1);
  });

  it('when the signal aborts while waiting for the answer, then the call ends and is not retried', async () => {
    script = [never, ok()];
    const controller = new AbortController();
    const call = client().infrastructure.health({ signal: controller.signal });
    while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));

    controller.abort();

    expect(await failure(call)).toMatchObject({ code: 'aborted' });
    expect(seen).toHaveLength(1);
  });
});

describe('client-side checks', () => {
  it.each([
    [{ namespace: '', text: 'x' }, 'namespace', 'namespace must not be empty'],
    [{ namespace: 'n'.repeat(129), text: 'x' }, 'namespace', 'namespace must be at most 128 characters'],
    [
      { namespace: '-bad', text: 'x' },
      'namespace',
      'namespace must start with a letter or digit and use only letters, digits and . _ : / -',
    ],
    [{ namespace: 'ns', text: '  ' }, 'event.content.text', 'event.content.text must not be empty'],
    [
      { namespace: 'ns', text: 'x'.repeat(32_769) },
      'event.content.text',
      'event.content.text must be at most 32768 characters',
    ],
  ])('when a write has %j, then it is refused at %s without a request', async (input, path, message) => {
    const error = await failure(client().memory.write(input));

    expect(error).toMatchObject({
      status: 0,
      code: 'validation_failed',
      retryable: false,
      details: { code: 'validation_failed', fields: [{ path, message }] },
    });
    expect(seen).toHaveLength(0);
  });

  it.each([0, 101, 2.5])(
    'when top_k is %s, then the recall is refused at top_k without a request',
    async (topK) => {
      const error = await failure(client().memory.recall({ namespace: 'ns', query: 'tea', top_k: topK }));

      expect(error.details?.fields).toEqual([
        { path: 'top_k', message: expect.stringMatching(/^top_k must be/) },
      ]);
      expect(seen).toHaveLength(0);
    },
  );
});
