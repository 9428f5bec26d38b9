import { MemoryRecallMessage } from '@tm/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cueTerms } from '../src/domain/cue-terms.js';
import { createRecallAdmission, HEAVY_RECALL_SLOTS, slotsOf } from '../src/domain/recall-admission.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A recall message of `tenant` as the gateway sends it (top_k defaulted by the contract). */
const recallOf = (tenant: string, cue: string, topK?: number) =>
  MemoryRecallMessage.parse({
    scope: {
      tenant_id: tenant,
      user_id: 'user',
      key_id: 'key',
      storage_connection_id: 'managed',
      consent: 'granted',
    },
    request_id: `req-${tenant}`,
    body: {
      contract_version: 'v1',
      namespace: 'notes',
      cue: { text: cue },
      ...(topK !== undefined ? { top_k: topK } : {}),
    },
  });

/** A recall that ends when the test says so, run through the admission; records when it starts. */
function admitted(
  admission: ReturnType<typeof createRecallAdmission>,
  started: string[],
  label: string,
  msg: MemoryRecallMessage,
) {
  let finish: () => void = () => undefined;
  const done = new Promise<string>((resolve) => {
    finish = () => resolve(label);
  });
  const run = admission
    .run(msg, cueTerms(msg.body.cue.text), async () => {
      started.push(label);
      return done;
    })
    .then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
  return { finish, run };
}

const HEAVY = 'the have invoice update '.repeat(170).trim();
const TENANT_REFUSAL = {
  status: 429,
  code: 'rate_limited',
  retryable: true,
  retryAfter: 1,
  message: 'Too many recalls are running for this tenant right now; retry in a moment',
};

describe('recall admission: the slots a recall takes', () => {
  it('when a recall asks few results with few terms, then one slot; many results or many terms, then a heavy recall’s', () => {
    expect(slotsOf(cueTerms('where did the parcel go'), 10)).toBe(1);
    expect(slotsOf(cueTerms(HEAVY), 100)).toBe(HEAVY_RECALL_SLOTS);
    expect(slotsOf(cueTerms(HEAVY), 10)).toBe(1);
    expect(
      slotsOf(cueTerms('parcel courier refund kettle invoice ticket payment delivery meeting phone'), 5),
    ).toBe(HEAVY_RECALL_SLOTS);
  });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('recall admission per tenant', () => {
  it("when a tenant runs a heavy recall, then its next recalls wait until it has ended and three times as long again, past its queue are refused 429, and another tenant's recall starts at once", async () => {
    // The clock the hold is measured by, and its timer; setImmediate stays real for settle().
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const admission = createRecallAdmission({
      concurrency: 8,
      perTenant: 2,
      perTenantWaiting: 2,
      maxWaiting: 64,
      maxWaitMs: 60_000,
    });
    const started: string[] = [];
    const a = [
      admitted(admission, started, 'a heavy 1', recallOf('a', HEAVY, 100)),
      admitted(admission, started, 'a heavy 2', recallOf('a', HEAVY, 100)),
      admitted(admission, started, 'a short', recallOf('a', 'parcel')),
      admitted(admission, started, 'a heavy 3', recallOf('a', HEAVY, 100)),
      // A tenant holds perTenant + perTenantWaiting recalls: one heavy running, three waiting; a fifth is refused.
      admitted(admission, started, 'a heavy 4', recallOf('a', HEAVY, 100)),
    ];
    const b = admitted(admission, started, 'b short', recallOf('b', 'parcel'));
    await settle();
    const startedAtFirst = [...started];
    const load = admission.load;

    b.finish();
    await vi.advanceTimersByTimeAsync(300);
    a[0]?.finish();
    await a[0]?.run;
    // It ran 300 ms: its slots stay taken three times as long.
    await vi.advanceTimersByTimeAsync(899);
    const startedInHold = [...started];
    await vi.advanceTimersByTimeAsync(1);
    const startedAfterFirst = [...started];
    for (const r of a) r.finish();
    await vi.runAllTimersAsync();
    const results = await Promise.all(a.map((r) => r.run));

    expect(startedAtFirst).toEqual(['a heavy 1', 'b short']);
    expect(load).toEqual({ running: HEAVY_RECALL_SLOTS + 1, waiting: 3, sources: 2 });
    expect(startedInHold).toEqual(['a heavy 1', 'b short']);
    expect(startedAfterFirst).toEqual(['a heavy 1', 'b short', 'a heavy 2']);
    expect(await b.run).toEqual({ value: 'b short' });
    expect(results.slice(0, 4)).toEqual([
      { value: 'a heavy 1' },
      { value: 'a heavy 2' },
      { value: 'a short' },
      { value: 'a heavy 3' },
    ]);
    expect(results[4]).toMatchObject({ error: TENANT_REFUSAL });
    expect(admission.load).toEqual({ running: 0, waiting: 0, sources: 0 });
  });

  it('when every tenant together fills the queue, then the next recall is refused with a retryable 503', async () => {
    const admission = createRecallAdmission({
      concurrency: 1,
      perTenant: 1,
      perTenantWaiting: 4,
      maxWaiting: 1,
      maxWaitMs: 60_000,
    });
    const started: string[] = [];
    const runs = ['a', 'b', 'c'].map((t) => admitted(admission, started, t, recallOf(t, 'parcel')));
    await settle();
    for (const r of runs) r.finish();
    const results = await Promise.all(runs.map((r) => r.run));

    expect(results.slice(0, 2)).toEqual([{ value: 'a' }, { value: 'b' }]);
    expect(results[2]).toMatchObject({
      error: { status: 503, code: 'service_unavailable', retryable: true, retryAfter: 1 },
    });
  });
});
