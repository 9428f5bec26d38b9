import { Streams } from '@tm/contracts';
import { client, type ScalableStack, storedAndBilledOnce, until, writeMany } from './scale-out.js';

/** What the HA check needs of the stack (docker-compose.ha.yml) beyond what scale-out does. */
export interface FailoverStack extends Pick<ScalableStack, 'kill' | 'replicas'> {
  /** A killed container started again on its own volumes: the lost machine brought back. */
  start(container: string): Promise<void>;
  /** Until the service is healthy again. */
  healthy(service: string): Promise<void>;
}

export interface FailoverTarget {
  stack: FailoverStack;
  baseUrl: string;
  /** NATS node (service name) → its monitoring URL on the host. */
  natsNodes: Record<string, string>;
  /** PostgreSQL node (service name) → its Patroni REST URL on the host. */
  patroniNodes: Record<string, string>;
}

const WRITES = 400;
const CONCURRENCY = 8;
const ask = (url: string) => fetch(url, { signal: AbortSignal.timeout(2_000) });

/** The node leading `stream`'s replicas, as any node that answers sees it (`/jsz`). */
async function streamLeader(nodes: Record<string, string>, stream: string): Promise<string | undefined> {
  for (const url of Object.values(nodes)) {
    try {
      const res = await ask(`${url}/jsz?accounts=true&streams=true`);
      if (!res.ok) continue;
      const jsz = (await res.json()) as {
        account_details?: Array<{ stream_detail?: Array<{ name: string; cluster?: { leader?: string } }> }>;
      };
      const found = (jsz.account_details ?? [])
        .flatMap((account) => account.stream_detail ?? [])
        .find((detail) => detail.name === stream)?.cluster?.leader;
      if (found) return found;
    } catch {
      // a node down: ask the next
    }
  }
  return undefined;
}

interface Member {
  name: string;
  role: string;
  state: string;
}

/** The Patroni cluster's members, as the first node that answers lists them (`/cluster`). */
async function members(nodes: Record<string, string>): Promise<Member[]> {
  for (const url of Object.values(nodes)) {
    try {
      const res = await ask(`${url}/cluster`);
      if (res.ok) return ((await res.json()) as { members?: Member[] }).members ?? [];
    } catch {
      // a node down: ask the next
    }
  }
  return [];
}

const running = (m: Member) => ['running', 'streaming'].includes(m.state);
/** The primary when the cluster is whole: one running leader, every other member a synchronous standby. */
async function wholeCluster(nodes: Record<string, string>): Promise<string | undefined> {
  const listed = await members(nodes);
  const leader = listed.find((m) => m.role === 'leader' && running(m));
  const standbys = listed.filter((m) => m.role === 'sync_standby' && running(m));
  return leader && listed.length === Object.keys(nodes).length && standbys.length === listed.length - 1
    ? leader.name
    : undefined;
}

interface Outage {
  /** The node killed (a service name). */
  victim: string;
  /** Resolves when the cluster has a new leader, with the time that took from the kill. */
  takenOver: (victim: string) => Promise<unknown>;
}

/**
 * `WRITES` writes from a client that resends with the same idempotency key; after a quarter are
 * acknowledged, `outage.victim`'s container is SIGKILLed. Then every write is acknowledged, stored once
 * and billed once; the victim is started again and the stack is healthy again. Resolves with what was
 * measured from the kill: a new leader, the first acknowledgement of a write sent after it.
 */
async function underLoad(
  target: FailoverTarget,
  apiKey: string,
  namespace: string,
  outage: Outage,
  healthyAgain: () => Promise<void>,
): Promise<string> {
  const tm = client(target.baseUrl, apiKey);
  const [container] = await target.stack.replicas(outage.victim);
  if (!container) throw new Error(`${outage.victim} is not running`);
  let killedAt: number | undefined;
  let firstAck: number | undefined;
  let takeover: Promise<number> | undefined;
  await writeMany(tm, namespace, WRITES, CONCURRENCY, (acknowledged, sentAt) => {
    if (killedAt !== undefined && firstAck === undefined && sentAt >= killedAt) firstAck = Date.now();
    if (acknowledged !== WRITES / 4) return;
    // Timed from when `kill` has returned: the container is gone then, and a write sent before that
    // may still have reached it.
    takeover = target.stack.kill(container).then(async () => {
      killedAt = Date.now();
      await outage.takenOver(outage.victim);
      return Date.now();
    });
  });
  if (!takeover) throw new Error('the writes ended before the node was killed');
  const newLeaderAt = await takeover;
  const { distinct, billed } = await storedAndBilledOnce(tm, namespace, WRITES);
  const back = Date.now();
  await target.stack.start(container);
  await healthyAgain();
  for (const service of ['gateway', 'memory']) await target.stack.healthy(service);
  const since = (at: number | undefined) =>
    at === undefined ? 'never' : `${((at - (killedAt as number)) / 1000).toFixed(1)} s`;
  return [
    `${outage.victim} SIGKILLed after ${WRITES / 4} of ${WRITES} writes`,
    `new leader ${since(newLeaderAt)} after the kill`,
    `first write sent after the kill acknowledged ${since(firstAck)} after it`,
    `all acknowledged (${tm.counted.retries} attempts resent), stored once (${distinct} distinct event ids), billed ${billed}`,
    `${outage.victim} back and the stack healthy in ${((Date.now() - back) / 1000).toFixed(1)} s`,
  ].join('; ');
}

/**
 * The NATS node leading the MEMORY_USAGE stream (billing's source) killed under a write load: the
 * services move to the other nodes, the stream elects a new leader from its two other copies.
 */
export async function killNatsNodeUnderLoad(target: FailoverTarget, apiKey: string): Promise<string> {
  const stream = Streams.memoryUsage.name;
  const leader = await until(
    () => `a leader for ${stream}`,
    60_000,
    () => streamLeader(target.natsNodes, stream),
  );
  if (!(leader in target.natsNodes))
    throw new Error(`${stream} is led by ${leader}, not a node of the stack`);
  const others = Object.fromEntries(Object.entries(target.natsNodes).filter(([name]) => name !== leader));
  return underLoad(
    target,
    apiKey,
    'compose-nats-node-lost',
    {
      victim: leader,
      takenOver: (victim) =>
        until(
          () => `a new leader for ${stream}`,
          60_000,
          async () => {
            const now = await streamLeader(others, stream);
            return now && now !== victim ? now : undefined;
          },
        ),
    },
    // `nats` is healthy while every node is.
    () => target.stack.healthy('nats'),
  );
}

/**
 * The PostgreSQL primary killed under a write load: Patroni promotes the synchronous standby once the
 * primary's lease runs out, HAProxy sends connections to it; the old primary, started again, rejoins
 * as the synchronous standby (pg_rewind).
 */
export async function killPrimaryUnderLoad(target: FailoverTarget, apiKey: string): Promise<string> {
  const primary = await until(
    () => 'a primary with a synchronous standby',
    120_000,
    () => wholeCluster(target.patroniNodes),
  );
  const survivors = Object.fromEntries(
    Object.entries(target.patroniNodes).filter(([name]) => name !== primary),
  );
  let rejoined = '';
  const result = await underLoad(
    target,
    apiKey,
    'compose-primary-lost',
    {
      victim: primary,
      takenOver: (victim) =>
        until(
          () => 'a new primary',
          60_000,
          async () => {
            const leader = (await members(survivors)).find((m) => m.role === 'leader' && running(m));
            return leader && leader.name !== victim ? leader.name : undefined;
          },
        ),
    },
    async () => {
      const started = Date.now();
      const now = await until(
        () => `${primary} back as synchronous standby`,
        120_000,
        () => wholeCluster(target.patroniNodes),
      );
      rejoined = `; ${primary} rejoined as synchronous standby of ${now} in ${((Date.now() - started) / 1000).toFixed(1)} s`;
      await target.stack.healthy('postgres');
    },
  );
  return result + rejoined;
}

/** Until every node of both clusters is up and the PostgreSQL cluster whole (after `up`). */
export async function clustersFormed(target: FailoverTarget): Promise<string> {
  const primary = await until(
    () => 'the PostgreSQL cluster whole',
    120_000,
    () => wholeCluster(target.patroniNodes),
  );
  const leader = await until(
    () => `a leader for ${Streams.memoryUsage.name}`,
    60_000,
    () => streamLeader(target.natsNodes, Streams.memoryUsage.name),
  );
  return `PostgreSQL primary ${primary}; ${Streams.memoryUsage.name} led by ${leader}`;
}
