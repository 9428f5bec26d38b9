import { LIMITS } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import type { Api } from '../support/api.js';
import { commonWords } from '../support/common-words.js';
import {
  createTenant,
  recallBody,
  relatedTexts,
  uniqueKey,
  uniqueNamespace,
  writeBody,
} from '../support/factories.js';
import { useStack } from '../support/stack.js';

/**
 * The default share (two slots, which one heavy recall takes whole) and one recall waiting, so that a
 * burst of a tenant's heavy recalls is well past its share however fast the machine is.
 */
const PER_TENANT_WAITING = 1;
const t = useStack({
  memoryEnv: {
    MEMORY_RECALL_TENANT_CONCURRENCY: '2',
    MEMORY_RECALL_TENANT_QUEUE: String(PER_TENANT_WAITING),
    MEMORY_RECALL_MAX_WAIT_MS: '3000',
  },
});
/** Heavy recalls a tenant holds at once: one running (both slots), the rest waiting. */
const HELD = 1 + PER_TENANT_WAITING;

type Response = Awaited<ReturnType<Api['post']>>;

/** Heavy recalls' namespace: 200 records of 2,000 characters of common words. */
async function heavyNamespace(api: Api, key: string) {
  const namespace = uniqueNamespace('heavy');
  for (let b = 0; b < 2; b++) {
    const res = await api.post('/api/v1/memory/write/batch', {
      key,
      body: {
        contract_version: 'v1',
        operation: 'memory.write_batch',
        namespace,
        items: Array.from({ length: LIMITS.writeBatchMaxItems }, (_, i) => ({
          idempotency_key: uniqueKey('seed'),
          event: {
            event_id: `seed-${b}-${i}`,
            occurred_at: '2026-11-22T09:00:00Z',
            content: { text: commonWords(2_000, b * 100 + i) },
          },
        })),
      },
    });
    if (res.status !== 200) throw new Error(`seeding: ${res.status}`);
  }
  return namespace;
}

function expectTenantShareRefusal(res: Response) {
  expect(res).toMatchObject({
    status: 429,
    body: { retryable: true, details: { code: 'rate_limited', request_id: res.headers['x-request-id'] } },
  });
  expect(res.body.error).toBe('Too many recalls are running for this tenant right now; retry in a moment');
  expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
}

describe('POST /api/v1/memory/recall, one tenant beside another', () => {
  it("when a tenant sends many times its share of the heaviest recalls at once, then its excess is refused 429 with Retry-After (what runs answers 200), and another tenant's recalls meanwhile all answer 200 with their own records", async () => {
    const [a, b] = [await createTenant(), await createTenant()];
    const namespaceA = await heavyNamespace(t.api, a.api_key);
    const namespaceB = uniqueNamespace('light');
    const textsB = ['the courier left the parcel with a neighbour', 'refund issued for the broken kettle'];
    for (const text of textsB) {
      const res = await t.api.write(b.api_key, writeBody(namespaceB, text), uniqueKey());
      expect(res.status).toBe(200);
    }
    const heavyCue = (i: number) =>
      recallBody(namespaceA, commonWords(LIMITS.cueMaxChars, i), { top_k: LIMITS.topK.max });

    // A's burst: eight times its share (running and waiting) at once; B's recalls, one after another, meanwhile.
    const burst = Array.from({ length: 8 * HELD }, (_, i) => t.api.recall(a.api_key, heavyCue(i)));
    const answersB: Response[] = [];
    for (let i = 0; i < 4; i++) {
      answersB.push(await t.api.recall(b.api_key, recallBody(namespaceB, 'parcel courier')));
      answersB.push(await t.api.recall(b.api_key, recallBody(namespaceB, 'refund kettle')));
    }
    const answersA = await Promise.all(burst);

    expect(answersB.map((res) => res.status)).toEqual(answersB.map(() => 200));
    expect(answersB.map((res) => relatedTexts(res)[0])).toEqual(answersB.map((_, i) => textsB[i % 2]));
    const ran = answersA.filter((res) => res.status === 200);
    const refused = answersA.filter((res) => res.status !== 200);
    for (const res of refused) expectTenantShareRefusal(res);
    for (const res of ran) {
      expect(res.body).toMatchObject({ retrieval_outcome: 'matched', namespace: namespaceA });
      expect(res.body.related).toHaveLength(LIMITS.topK.max);
    }
    // The first runs; the one waiting runs unless its wait passes the bound on a slow machine (its 429).
    expect(ran.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeGreaterThan(0);
  }, 180_000);

  it('when the tenant’s recalls have ended, then its next recall runs again', async () => {
    const a = await createTenant();
    const namespace = await heavyNamespace(t.api, a.api_key);

    const burst = await Promise.all(
      Array.from({ length: 4 * HELD }, (_, i) =>
        t.api.recall(a.api_key, recallBody(namespace, commonWords(LIMITS.cueMaxChars, i))),
      ),
    );
    const after = await t.api.recall(a.api_key, recallBody(namespace, 'refund invoice'));

    expect(burst.some((res) => res.status === 200)).toBe(true);
    expect(after).toMatchObject({ status: 200, body: { retrieval_outcome: 'matched', namespace } });
  }, 180_000);
});
