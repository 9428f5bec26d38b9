import { describe, expect, it } from 'vitest';
import type { Api } from '../support/api.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useSecondGateway, useStack } from '../support/stack.js';

const PER_KEY = 5;
const PER_TENANT = 8;
const WINDOW_SECONDS = 60;
// A window far longer than any test, so no count rolls over mid-test and every count below is exact.
const t = useStack({
  gatewayEnv: {
    RATE_LIMIT_PER_KEY: String(PER_KEY),
    RATE_LIMIT_PER_TENANT: String(PER_TENANT),
    RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
  },
});

type Response = Awaited<ReturnType<Api['get']>>;

/** `count` requests, each sent after the previous one is answered: the counts depend on order. */
async function oneAfterAnother(count: number, send: (i: number) => Promise<Response>): Promise<Response[]> {
  const answers: Response[] = [];
  for (let i = 0; i < count; i++) answers.push(await send(i));
  return answers;
}

const recall = (api: Api, key: string) => api.recall(key, recallBody(uniqueNamespace(), 'anything'));

/** A second key for the tenant, made by its owner: one control-plane request on the tenant's count. */
async function secondKey(tenant: Awaited<ReturnType<typeof createTenant>>) {
  const session = await t.api.login(tenant.owner.email, tenant.owner.password);
  const res = await t.api.post('/api/v1/control/api-keys', { key: session, body: { name: 'second' } });
  expect(res.status).toBe(201);
  return res.body.key as string;
}

function expectRateLimited(res: Response) {
  expect(res).toMatchObject({
    status: 429,
    body: {
      retryable: true,
      request_id: res.headers['x-request-id'],
      details: { code: 'rate_limited', request_id: res.headers['x-request-id'] },
    },
  });
  expect(res.body.error).toEqual(expect.any(String));
  // Whole seconds until the window frees a request: at least 1, never past the window.
  expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
  expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(WINDOW_SECONDS);
}

describe('shared rate limits', () => {
  it('when a key sends exactly its limit, then none of its requests is refused', async () => {
    const tenant = await createTenant();

    const answers = await oneAfterAnother(PER_KEY, () => recall(t.api, tenant.api_key));

    expect(answers.map((r) => r.status)).toEqual(Array(PER_KEY).fill(200));
  });

  it('when a key sends more than its limit, then each request past it is 429 rate_limited, retryable, with Retry-After', async () => {
    const tenant = await createTenant();

    const answers = await oneAfterAnother(PER_KEY + 2, () => recall(t.api, tenant.api_key));

    expect(answers.slice(0, PER_KEY).map((r) => r.status)).toEqual(Array(PER_KEY).fill(200));
    for (const refused of answers.slice(PER_KEY)) expectRateLimited(refused);
  });

  it('when one key is over its limit, then a key of another tenant is not affected', async () => {
    const limited = await createTenant();
    const other = await createTenant();
    await oneAfterAnother(PER_KEY, () => recall(t.api, limited.api_key));

    const refused = await recall(t.api, limited.api_key);
    const unaffected = await oneAfterAnother(PER_KEY, () => recall(t.api, other.api_key));

    expectRateLimited(refused);
    expect(unaffected.map((r) => r.status)).toEqual(Array(PER_KEY).fill(200));
  });

  it('when two keys of one tenant together pass the tenant limit, then both are refused though neither reached its own', async () => {
    const tenant = await createTenant();
    const second = await secondKey(tenant); // tenant count 1
    const first = tenant.api_key;

    const allowed = [
      ...(await oneAfterAnother(PER_KEY - 1, () => recall(t.api, first))), // tenant 5, first key 4
      ...(await oneAfterAnother(PER_TENANT - PER_KEY, () => recall(t.api, second))), // tenant 8, second key 3
    ];
    const overTenant = [await recall(t.api, second), await recall(t.api, first)]; // each key still ≤ 5

    expect(allowed.map((r) => r.status)).toEqual(Array(PER_TENANT - 1).fill(200));
    for (const refused of overTenant) expectRateLimited(refused);
  });

  it('when a session goes over the limit, then control-plane routes answer 429 too', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);

    const answers = await oneAfterAnother(PER_KEY + 1, () =>
      t.api.get('/api/v1/control/account', { key: session }),
    );

    expect(answers.slice(0, PER_KEY).map((r) => r.status)).toEqual(Array(PER_KEY).fill(200));
    expectRateLimited(answers[PER_KEY] as Response);
  });

  it('when writes are refused by the limit, then none of them is stored', async () => {
    const tenant = await createTenant();
    const reader = await secondKey(tenant); // tenant count 1
    const namespace = uniqueNamespace();
    const write = (i: number) =>
      t.api.write(
        tenant.api_key,
        writeBody(namespace, `limited note ${i}`, { event_id: `e${i}` }),
        uniqueKey(),
      );

    // The key's limit refuses the sixth write; the tenant's count (1 + 6) leaves room for one recall.
    const writes = await oneAfterAnother(PER_KEY + 1, write);
    const recalled = await t.api.recall(reader, recallBody(namespace, 'limited note', { top_k: 20 }));

    expect(writes.slice(0, PER_KEY).map((r) => r.status)).toEqual(Array(PER_KEY).fill(200));
    expectRateLimited(writes[PER_KEY] as Response);
    expect(recalled.status).toBe(200);
    expect(recalled.body.related.map((r: { event_id: string }) => r.event_id).sort()).toEqual([
      'e0',
      'e1',
      'e2',
      'e3',
      'e4',
    ]);
  });

  describe('across two gateway instances', () => {
    const second = useSecondGateway(t);

    it("when one key's requests alternate between instances, then they count together against one limit", async () => {
      const tenant = await createTenant();
      const instances = [t.api, second.api];

      const allowed = await oneAfterAnother(PER_KEY, (i) => recall(instances[i % 2] as Api, tenant.api_key));
      const refused = [await recall(second.api, tenant.api_key), await recall(t.api, tenant.api_key)];

      expect(allowed.map((r) => r.status)).toEqual(Array(PER_KEY).fill(200));
      for (const res of refused) expectRateLimited(res);
    });
  });
});
