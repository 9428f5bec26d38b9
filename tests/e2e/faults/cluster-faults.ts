import { setTimeout as sleep } from 'node:timers/promises';
import { Streams } from '@tm/contracts';
import { firstWriteNote, seconds } from './fault-notes.js';
import { CLUSTER_SETTLED_WITHIN_MS } from './fault-stack.js';
import type { Fault, FaultContext } from './fault-table.js';
import type { PrivateNatsCluster } from './private-nats-cluster.js';

/**
 * The rows on a three-node NATS cluster (FaultStack with natsNodes: 3). The node they go after is the
 * one leading MEMORY_USAGE: every acknowledged write's usage passes through that stream to billing.
 */
const USAGE = Streams.memoryUsage.name;
/** How long a killed node stays down before the suite starts it again, as in the other kill rows. */
const RESTART_AFTER_MS = 1_000;
/** A new leader later than this is a finding (the row fails), not a wait. */
const NEW_LEADER_WITHIN_MS = 30_000;
/**
 * How long the partitioned node stays frozen: past the 30-40 s a client takes to give up on a node
 * that stops answering pings (libs/bus connect.ts: every 10 s, three missed), so the row shows the
 * services leaving it, not just waiting it out.
 */
export const PARTITION_MS = 45_000;

async function leaderOfUsage(ctx: FaultContext, cluster: PrivateNatsCluster): Promise<string | undefined> {
  const leader = await cluster.streamLeader(USAGE);
  if (!leader) ctx.fail(`no leader of ${USAGE} to go after`);
  return leader;
}

/** Who was connected to a node: those clients must move to another one. */
async function clientsNote(cluster: PrivateNatsCluster, name: string): Promise<string> {
  const clients = await cluster.clientsOf(name).catch(() => [] as string[]);
  return clients.length ? `clients on it: ${clients.join(', ')}` : 'no clients on it';
}

/**
 * After `lost` stopped serving at `since`: when another node led the usage stream, and when a write
 * sent after `since` was first acknowledged. Measured and noted, failing only past the bound.
 */
async function measureFailover(ctx: FaultContext, cluster: PrivateNatsCluster, lost: string, since: number) {
  const next = await cluster.newStreamLeader(USAGE, lost, NEW_LEADER_WITHIN_MS);
  if (!next) ctx.fail(`no new leader of ${USAGE} within ${seconds(NEW_LEADER_WITHIN_MS)}`);
  return next === undefined
    ? 'no new leader'
    : `new leader ${next.leader} after ${seconds(next.seenAt - since)}`;
}

/**
 * Wait for the cluster to be whole again after a node came back at `since` (started, or thawed): every
 * stream and consumer with both replicas current. A row that cannot wait for it fails.
 */
async function rejoined(ctx: FaultContext, cluster: PrivateNatsCluster, since: number) {
  const missing = await cluster.settled(CLUSTER_SETTLED_WITHIN_MS);
  if (missing) {
    ctx.fail(`not whole ${seconds(CLUSTER_SETTLED_WITHIN_MS)} after the node came back: ${missing}`);
    return false;
  }
  ctx.note(`every stream current again ${seconds(Date.now() - since)} after the node came back`);
  return true;
}

/** Once the stack is healthy: the node that came back caught up (not part of the time to healthy). */
const caughtUp = async (ctx: FaultContext, lifted: number) => {
  await rejoined(ctx, ctx.stack.cluster, lifted);
};

export const CLUSTER_FAULTS: Fault[] = [
  {
    id: 'kill9-nats-leader',
    title: `kill -9 the NATS node leading ${USAGE} (three-node cluster)`,
    nats: 'cluster',
    connectionErrors: 'none',
    run: async (ctx) => {
      const cluster = ctx.stack.cluster;
      const leader = await leaderOfUsage(ctx, cluster);
      if (!leader) return Date.now();
      const clients = await clientsNote(cluster, leader);
      const killedAt = Date.now();
      await cluster.node(leader).kill();
      const failover = await measureFailover(ctx, cluster, leader, killedAt);
      await sleep(RESTART_AFTER_MS);
      ctx.note(`killed ${leader} (${clients}); ${failover}; ${firstWriteNote(ctx, killedAt)}`);
      const lifted = Date.now();
      await cluster.node(leader).start();
      return lifted;
    },
    afterHealthy: caughtUp,
  },
  {
    id: 'nats-rolling-restart',
    title:
      'NATS rolling restart, SIGTERM one node at a time, the next once it is caught up (three-node cluster)',
    nats: 'cluster',
    connectionErrors: 'none',
    run: async (ctx) => {
      const cluster = ctx.stack.cluster;
      let lifted = Date.now();
      const last = cluster.names.at(-1);
      for (const name of cluster.names) {
        const ledUsage = (await cluster.streamLeader(USAGE)) === name;
        const stoppedAt = Date.now();
        await cluster.node(name).stop();
        const stopped = `${name} stopped in ${seconds(Date.now() - stoppedAt)}`;
        ctx.note(
          ledUsage
            ? `${stopped}; it led ${USAGE}: ${await measureFailover(ctx, cluster, name, stoppedAt)}`
            : stopped,
        );
        lifted = Date.now();
        await cluster.node(name).start();
        // The next node goes only once this one holds its copies again: two down is no quorum.
        if (name !== last && !(await rejoined(ctx, cluster, lifted))) break;
      }
      return lifted;
    },
    afterHealthy: caughtUp,
  },
  {
    id: 'nats-partition',
    title: `NATS node leading ${USAGE} cut off ${PARTITION_MS / 1000} s, SIGSTOP then SIGCONT (three-node cluster)`,
    nats: 'cluster',
    connectionErrors: 'none',
    run: async (ctx) => {
      const cluster = ctx.stack.cluster;
      const leader = await leaderOfUsage(ctx, cluster);
      if (!leader) return Date.now();
      const clients = await clientsNote(cluster, leader);
      const node = cluster.node(leader);
      const frozenAt = Date.now();
      node.signal('SIGSTOP');
      try {
        const failover = await measureFailover(ctx, cluster, leader, frozenAt);
        await sleep(Math.max(0, frozenAt + PARTITION_MS - Date.now()));
        ctx.note(`froze ${leader} (${clients}); ${failover}; ${firstWriteNote(ctx, frozenAt)}`);
      } finally {
        node.signal('SIGCONT');
      }
      return Date.now();
    },
    afterHealthy: caughtUp,
  },
];
