import { Subjects } from '@tm/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import type { Api } from '../support/api.js';
import { USAGE, usd, WRITE_MICRO_USD } from '../support/billing.js';
import { eventually } from '../support/eventually.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { memoryDbCount } from '../support/memory-db.js';
import { type ConnectionDeliveries, deliveriesByConnection } from '../support/nats-monitor.js';
import { type ServiceProcess, startServiceProcess } from '../support/service-process.js';
import { useSecondGateway, useStack } from '../support/stack.js';

// A short gateway deadline: the requests the killed instance held time out (504) after it, then are retried.
const t = useStack({ requestTimeoutMs: 2_000, breakerResetMs: 300 });
const second = useSecondGateway(t);

const WRITES = 300;
const RECALLS = 60;
/** Requests in flight at once, across both gateways. */
const CONCURRENCY = 24;
/** The second memory instance is crashed once this many writes are acknowledged. */
const CRASH_AFTER = WRITES / 3;
/** Retries of a retryable answer; far more than a failover takes, so every write ends acknowledged. */
const MAX_ATTEMPTS = 30;

type Res = Awaited<ReturnType<Api['write']>>;
const retryable = (res: Res) => (res.status === 503 || res.status === 504) && res.body?.retryable === true;

/**
 * A client's retry loop: a retryable 503/504 is sent again, with the same idempotency key for a write,
 * through the other gateway (a load balancer may pick either), after a short pause.
 */
async function withRetries(first: number, send: (api: Api) => Promise<Res>) {
  const gateways = [t.api, second.api];
  let attempt = 0;
  for (;;) {
    const via = (first + attempt) % 2;
    const res = await send(gateways[via] as Api);
    attempt++;
    if (!retryable(res) || attempt >= MAX_ATTEMPTS) return { res, via, attempts: attempt };
    await new Promise((r) => setTimeout(r, 100 * Math.min(attempt, 5)));
  }
}

/** Run `jobs` with at most `limit` in flight, in order of the array. */
async function runConcurrently(jobs: Array<() => Promise<void>>, limit: number) {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await jobs[next++]?.();
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

describe('two memory instances and two gateways on one bus and one set of databases', () => {
  let memoryB: ServiceProcess | undefined;
  afterAll(() => memoryB?.kill('SIGKILL'));

  it('when one memory instance is SIGKILLed mid-load, then every acknowledged write is stored once and billed once, and both instances and both gateways served', async () => {
    // Arrange: a second memory instance as its own process (the stack's runs in this one). Every
    // instance connects as "memory"; the new connection is the second instance's.
    const env = t.stack.env;
    const memoryConnections = () => deliveriesByConnection(env.natsMonitorUrl, 'memory');
    const before = new Set((await memoryConnections()).map((c) => c.cid));
    const crashing = await startServiceProcess('memory', {
      MEMORY_DATABASE_URL: env.memoryDbUrl,
      NATS_URL: env.natsUrl,
      OUTBOX_RELAY_INTERVAL_MS: '100',
    });
    memoryB = crashing;
    const secondInstance = (await memoryConnections()).find((c) => !before.has(c.cid));
    const writesHeldBySecond = async () =>
      writesTaken((await memoryConnections()).find((c) => c.cid === secondInstance?.cid));
    const tenant = await createTenant();
    const namespaces = [uniqueNamespace('mi'), uniqueNamespace('mi'), uniqueNamespace('mi')];
    const writes = Array.from({ length: WRITES }, (_, i) => ({
      key: uniqueKey('mi'),
      body: writeBody(namespaces[i % namespaces.length] as string, `failover note ${i}`, {
        event_id: `mi-evt-${i}`,
      }),
    }));

    /**
     * The crash, made to land on requests in hand: the instance is frozen (SIGSTOP), so the writes
     * queued to it from then on stay unanswered, and once it holds one more write message it is
     * SIGKILLed, as a machine that hangs and dies would be. Bounded: it is killed after 10 s regardless.
     * Frozen before anything is awaited: on a loaded machine the remaining writes could otherwise all
     * be answered while the monitor is read, and the crash would land on nothing.
     */
    const crash = async () => {
      crashing.signal('SIGSTOP');
      const taken = await writesHeldBySecond();
      for (let i = 0; i < 100 && (await writesHeldBySecond()) <= taken; i++)
        await new Promise((r) => setTimeout(r, 100));
      await crashing.kill('SIGKILL');
    };

    // Act: writes and recalls interleaved over both gateways; the crash lands while requests are in flight.
    const written: Array<{ res: Res; via: number; attempts: number }> = [];
    const recalled: Res[] = [];
    let acknowledged = 0;
    let crashed: Promise<void> | undefined;
    const jobs: Array<() => Promise<void>> = writes.map((w, i) => async () => {
      const out = await withRetries(i, (api) => api.write(tenant.api_key, w.body, w.key));
      written[i] = out;
      if (out.res.status === 200 && ++acknowledged === CRASH_AFTER) crashed = crash();
    });
    for (let r = 0; r < RECALLS; r++) {
      jobs.splice(r * 5 + 2, 0, async () => {
        const ns = namespaces[r % namespaces.length] as string;
        recalled.push(
          (await withRetries(r, (api) => api.recall(tenant.api_key, recallBody(ns, 'failover note')))).res,
        );
      });
    }
    await runConcurrently(jobs, CONCURRENCY);
    await crashed;

    // Assert: every write acknowledged, as retained, whichever attempt and gateway answered; the
    // writes the crashed instance held were answered only on a retry.
    expect(crashed).toBeDefined();
    expect(written.some((w) => w.attempts > 1)).toBe(true);
    for (const { res } of written) {
      expect(res).toMatchObject({ status: 200, body: { state: 'retained' } });
    }
    for (const res of recalled) expect(res.status).toBe(200);

    // Stored exactly once: each namespace holds its writes, and no event id twice.
    for (const [n, namespace] of namespaces.entries()) {
      const expected = writes.filter((_, i) => i % namespaces.length === n).length;
      expect(
        await memoryDbCount(
          'SELECT count(*) AS n FROM memory_record WHERE tenant_id = $1 AND namespace = $2',
          [tenant.tenant_id, namespace],
        ),
      ).toBe(expected);
    }
    expect(
      await memoryDbCount(
        `SELECT count(DISTINCT event_id) AS n FROM memory_record WHERE tenant_id = $1 AND event_id = ANY($2::text[])`,
        [tenant.tenant_id, writes.map((w) => w.body.event.event_id)],
      ),
    ).toBe(WRITES);

    // Billed once: the surviving instance relays what the killed one committed but had not published.
    const usage = await eventually(async () => {
      const res = await t.api.get(USAGE, { key: tenant.api_key });
      expect(writeUsage(res)?.requests).toBe(WRITES);
      return res;
    });
    expect(writeUsage(usage)).toMatchObject({
      requests: WRITES,
      units: WRITES,
      recorded_charge_usd: usd(WRITES * WRITE_MICRO_USD),
    });

    // Served by both memory instances (each connects as "memory"): the killed one's connection is
    // among the server's closed ones, with what it had received.
    const instances = await memoryConnections();
    expect(instances.map((c) => c.state).sort()).toEqual(['closed', 'open']);
    expect(instances.find((c) => c.state === 'closed')?.cid).toBe(secondInstance?.cid);
    expect(instances.every((c) => writesTaken(c) > 0)).toBe(true);
    // And through both gateways.
    expect(new Set(written.map((w) => w.via))).toEqual(new Set([0, 1]));
  }, 90_000);
});

/** Write messages (coalesced or single) a memory instance's connection received. */
const writesTaken = (c: ConnectionDeliveries | undefined) =>
  (c?.bySubject[Subjects.memory.writeCoalesced] ?? 0) + (c?.bySubject[Subjects.memory.write] ?? 0);

type UsageRes = Awaited<ReturnType<Api['get']>>;
const writeUsage = (res: UsageRes) =>
  (res.body?.operations as Array<{ operation: string; requests: number }> | undefined)?.find(
    (o) => o.operation === 'memory.write',
  );
