import { randomBytes } from 'node:crypto';
import { LIMITS } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import type { Api } from '../support/api.js';
import { createTenant, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { recordsInNamespace, recordsWithEvent } from '../support/memory-db.js';
import { useStack } from '../support/stack.js';

/**
 * One tenant's largest allowed batches against another tenant's single writes. The text budget's
 * window is longer than any test here, so the second batch meets the first one's count, whatever
 * the machine's speed.
 */
const t = useStack({ gatewayEnv: { RATE_LIMIT_TEXT_WINDOW_SECONDS: '60' } });

const BATCH = '/api/v1/memory/write/batch';
type Response = Awaited<ReturnType<Api['post']>>;

/**
 * A text of exactly `chars` characters of random five-letter words: about 5,400 distinct terms, the
 * most postings a text of that length makes (ordinary prose repeats its words).
 */
function longText(chars: number): string {
  const bytes = randomBytes(chars);
  let text = '';
  for (let i = 0; text.length < chars; i += 5) {
    for (let j = 0; j < 5; j++) text += String.fromCharCode(97 + ((bytes[(i + j) % chars] as number) % 26));
    text += ' ';
  }
  return text.slice(0, chars);
}

/** The largest batch the route allows: 100 items of the longest text, each its own key and event id. */
function largestBatch(namespace: string) {
  return {
    contract_version: 'v1',
    operation: 'memory.write_batch',
    namespace,
    items: Array.from({ length: LIMITS.writeBatchMaxItems }, (_, i) => ({
      idempotency_key: uniqueKey('big'),
      event: writeBody(namespace, longText(LIMITS.textMaxChars), { event_id: `big-${i}` }).event,
    })),
  };
}

/** Single small writes, one after another, until `done` says stop (and at least `atLeast` of them). */
async function writeUntil(api: Api, key: string, namespace: string, done: () => boolean, atLeast: number) {
  const answers: Response[] = [];
  for (let i = 0; !done() || i < atLeast; i++) {
    answers.push(
      await api.write(key, writeBody(namespace, `small note ${i}`, { event_id: `small-${i}` }), uniqueKey()),
    );
  }
  return answers;
}

/** A's two batches, one right after the other; `done` once both are answered. */
async function twoLargestBatches(key: string, namespaces: [string, string]) {
  const state = { done: false, answers: [] as Response[] };
  const sending = (async () => {
    for (const namespace of namespaces) {
      state.answers.push(await t.api.post(BATCH, { key, body: largestBatch(namespace) }));
    }
    state.done = true;
  })();
  return { state, sending };
}

function expectRateLimited(res: Response) {
  expect(res).toMatchObject({
    status: 429,
    body: { retryable: true, details: { code: 'rate_limited', request_id: res.headers['x-request-id'] } },
  });
  expect(res.body.error).toMatch(/^Text budget exceeded/);
  expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
}

describe('POST /api/v1/memory/write/batch, one tenant beside another', () => {
  it("when a tenant sends the largest allowed batch twice back to back, then another tenant's concurrent single writes all succeed and are stored", async () => {
    const [a, b] = [await createTenant(), await createTenant()];
    const namespaceB = uniqueNamespace('small');

    const { state, sending } = await twoLargestBatches(a.api_key, [
      uniqueNamespace('big'),
      uniqueNamespace('big'),
    ]);
    const answersB = await writeUntil(t.api, b.api_key, namespaceB, () => state.done, 5);
    await sending;

    expect(answersB.map((res) => res.status)).toEqual(answersB.map(() => 200));
    expect(answersB.map((res) => res.body.idempotency_outcome)).toEqual(answersB.map(() => 'Accepted'));
    expect(await recordsInNamespace(b.tenant_id, namespaceB)).toBe(answersB.length);
  }, 180_000);

  it('when a tenant sends the largest allowed batch twice back to back, then the first is answered 200 (each item written or retryable), the second 429 with Retry-After, and nothing of the second is stored', async () => {
    const a = await createTenant();
    const namespaces: [string, string] = [uniqueNamespace('big'), uniqueNamespace('big')];

    const { state, sending } = await twoLargestBatches(a.api_key, namespaces);
    await sending;
    const [first, second] = state.answers as [Response, Response];

    expect(first).toMatchObject({ status: 200, body: { operation: 'memory.write_batch' } });
    const results = first.body.results as Array<{
      index: number;
      status: number;
      body: Record<string, unknown>;
    }>;
    const written = results.filter((r) => r.status === 200);
    const notWritten = results.filter((r) => r.status !== 200);
    // An item memory had no time left to start is the one answer besides 200: retryable, not written.
    for (const r of notWritten) {
      expect(r).toMatchObject({
        status: 503,
        body: { retryable: true, details: { code: 'service_unavailable' } },
      });
    }
    expect(first.body.item_counts).toMatchObject({
      total: LIMITS.writeBatchMaxItems,
      accepted: written.length,
      failed: notWritten.length,
    });
    expect(first.body.retryable).toBe(notWritten.length > 0);
    expect(await recordsInNamespace(a.tenant_id, namespaces[0])).toBe(written.length);
    for (const r of notWritten)
      expect(await recordsWithEvent(a.tenant_id, namespaces[0], `big-${r.index}`)).toBe(0);
    expectRateLimited(second);
    expect(await recordsInNamespace(a.tenant_id, namespaces[1])).toBe(0);
  }, 180_000);
});
