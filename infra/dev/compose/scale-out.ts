import { setTimeout as sleep } from 'node:timers/promises';
import { TextMemory } from '@text-memory/sdk';
import { writesByConnection } from './bus-deliveries.js';

/** What the check needs of a stack beyond up and down: more replicas of one service, and a crash. */
export interface ScalableStack {
  scale(service: string, replicas: number): Promise<void>;
  /** The service's running containers. */
  replicas(service: string): Promise<string[]>;
  /** SIGKILL, as a machine that dies would. */
  kill(container: string): Promise<void>;
  /** Freeze every process of the container (the cgroup freezer): it holds its connections, answers nothing. */
  pause(container: string): Promise<void>;
  /** The container's address on the stack's network. */
  address(container: string): Promise<string>;
}

export interface ScaleOutTarget {
  stack: ScalableStack;
  baseUrl: string;
  /** The monitoring of every NATS server (each node of a cluster), where the replicas' connections show. */
  natsMonitorUrls: string[];
}

const REPLICAS = 3;

/**
 * A client that rides out a replica's crash: the SDK's own retries, with room for a failover. `retries`
 * counts the attempts resent, so a crash that no request noticed is not taken for one survived.
 */
export function client(baseUrl: string, apiKey: string) {
  const counted = { retries: 0 };
  const tm = new TextMemory({
    baseUrl,
    apiKey,
    maxRetries: 20,
    backoffBaseMs: 200,
    backoffMaxMs: 2_000,
    onRetry: () => {
      counted.retries++;
    },
  });
  return Object.assign(tm, { counted });
}

/**
 * `count` writes, `concurrency` in flight; `afterEach` sees how many were acknowledged so far, and when
 * the one just acknowledged was first sent (its retries, with the same key, come after).
 */
export async function writeMany(
  tm: TextMemory,
  namespace: string,
  count: number,
  concurrency: number,
  afterEach: (acknowledged: number, sentAt: number) => void = () => {},
) {
  let next = 0;
  let acknowledged = 0;
  const outcomes: Array<{ state?: string; error?: string }> = [];
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const key = `compose-${namespace}-${i}`;
      const sentAt = Date.now();
      try {
        const res = await tm.memory.write({
          namespace,
          text: `replica note ${i} about the compose check`,
          idempotency_key: key,
          event_id: key,
        });
        outcomes[i] = { state: res.state };
        afterEach(++acknowledged, sentAt);
      } catch (err) {
        outcomes[i] = { error: err instanceof Error ? err.message : String(err) };
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const failed = outcomes.filter((o) => o.state !== 'retained');
  if (failed.length > 0)
    throw new Error(`${failed.length} of ${count} writes not retained, e.g. ${JSON.stringify(failed[0])}`);
}

/** Polls `probe` until it gives a value; `what` names the wait in the error, asked only then. */
export async function until<T>(
  what: () => string,
  withinMs: number,
  probe: () => Promise<T | undefined>,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() - started > withinMs) throw new Error(`${what()} not within ${withinMs / 1000} s`);
    await sleep(500);
  }
}

/**
 * memory scaled to three replicas: each connects to NATS as "memory", and a burst of writes is shared
 * among the three (a queue group). Resolves with the writes each replica took.
 */
export async function spreadOverReplicas(target: ScaleOutTarget, apiKey: string): Promise<string> {
  await target.stack.scale('memory', REPLICAS);
  const before = await until(
    () => `${REPLICAS} memory replicas on the bus`,
    120_000,
    async () => {
      const counts = await writesByConnection(target.natsMonitorUrls, 'memory');
      return counts.size === REPLICAS ? counts : undefined;
    },
  );
  await writeMany(client(target.baseUrl, apiKey), 'compose-spread', 90, 9);
  const after = await writesByConnection(target.natsMonitorUrls, 'memory');
  const taken = [...before.keys()].map(
    (cid) => (after.get(cid)?.writes ?? 0) - (before.get(cid)?.writes ?? 0),
  );
  if (taken.some((n) => n === 0)) throw new Error(`a replica took no writes: ${taken.join(', ')}`);
  return `writes per replica: ${taken.join(', ')}`;
}

/**
 * Kill `victim` with work in flight: frozen first, so the writes the queue group keeps handing it wait
 * unanswered, then SIGKILLed once nats-server has delivered it one. (Killed at a random moment, a replica
 * that answers in milliseconds is seldom holding a request, and the crash would test nothing.)
 * Resolves with the writes it was holding.
 */
async function killWithWritesInFlight(target: ScaleOutTarget, victim: string): Promise<number> {
  const ip = await target.stack.address(victim);
  const delivered = async () => {
    const connections = await writesByConnection(target.natsMonitorUrls, 'memory');
    return [...connections.values()].find((c) => c.ip === ip)?.writes;
  };
  await target.stack.pause(victim);
  const atPause = await delivered();
  if (atPause === undefined) throw new Error(`no bus connection from ${victim} (${ip})`);
  const held = await until(
    () => `a write delivered to the frozen ${victim}`,
    30_000,
    async () => {
      const now = await delivered();
      return now !== undefined && now > atPause ? now - atPause : undefined;
    },
  );
  await target.stack.kill(victim);
  return held;
}

/**
 * One replica SIGKILLed while writes are in flight on it: every write is acknowledged in the end (the
 * SDK retries with the same idempotency key), and the namespace then holds each write exactly once,
 * billed once. `apiKey` is a tenant of its own, so its usage counts these writes only.
 */
export async function killReplicaUnderLoad(target: ScaleOutTarget, apiKey: string): Promise<string> {
  const WRITES = 600;
  const namespace = 'compose-failover';
  const tm = client(target.baseUrl, apiKey);
  const victims = await target.stack.replicas('memory');
  if (victims.length < 2) throw new Error(`${victims.length} memory replica running; a crash needs two`);
  const victim = victims[victims.length - 1] as string;
  let killed: Promise<number> | undefined;
  await writeMany(tm, namespace, WRITES, 16, (acknowledged) => {
    if (acknowledged === WRITES / 4) killed = killWithWritesInFlight(target, victim);
  });
  if (!killed) throw new Error('the writes ended before a replica was killed');
  const held = await killed;
  // A write the dead replica held comes back to the client as a 503/504, which it resends.
  if (tm.counted.retries === 0) throw new Error(`${victim} held ${held} writes, yet none was resent`);

  const { distinct, billed } = await storedAndBilledOnce(tm, namespace, WRITES);
  return `${victim} frozen after ${WRITES / 4} of ${WRITES} writes and SIGKILLed holding ${held}; all acknowledged (${tm.counted.retries} attempts resent), stored once (${distinct} distinct event ids), billed ${billed}`;
}

/**
 * The namespace holds each of `writes` exactly once (as many records as distinct event ids, as writes)
 * and the tenant is billed for each once. The tenant must be one of its own, so its usage counts these
 * writes only; billing counts from the bus, so it is waited for.
 */
export async function storedAndBilledOnce(
  tm: TextMemory,
  namespace: string,
  writes: number,
): Promise<{ distinct: number; billed: number }> {
  const exported = await tm.infrastructure.export({ namespace });
  const eventIds = new Set(exported.records.map((r) => r.event_id));
  if (exported.records.length !== writes || eventIds.size !== writes)
    throw new Error(`stored ${exported.records.length} records, ${eventIds.size} distinct; wrote ${writes}`);
  let billedWrites: number | undefined;
  const billed = await until(
    () => `${writes} writes billed (last seen: ${billedWrites})`,
    60_000,
    async () => {
      const usage = await tm.infrastructure.usage({ window_minutes: 60 });
      billedWrites = usage.operations?.find((o) => o.operation === 'memory.write')?.requests;
      return billedWrites === writes ? billedWrites : undefined;
    },
  );
  return { distinct: eventIds.size, billed };
}
