import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ConsumerInfo, jetstreamManager, type StreamInfo } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Streams } from '@tm/contracts';
import { PrivateJetStream } from './private-jetstream.js';

/** The cluster's name, as infra/nats/cluster.conf names it. */
const CLUSTER = 'tm';
/** Copies of each stream and consumer on three nodes: what JETSTREAM_REPLICAS=3 asks for. */
const REPLICAS = 3;
/** A JetStream API request while a leader is being elected gets no answer: give up on it soon, ask again. */
const API_TIMEOUT_MS = 1_000;

export interface NodePorts {
  client: number;
  cluster: number;
  monitor: number;
}

/**
 * Three nats-server processes on loopback forming one JetStream cluster, as infra/nats/cluster.conf
 * describes three machines: each its own client, cluster and monitoring port and store dir, routes to
 * the other two, one cluster name. Each node can be killed, stopped, frozen and started again on its
 * own ports and store, as a machine lost, restarted or cut off and brought back.
 */
export class PrivateNatsCluster {
  readonly nodes: ReadonlyMap<string, PrivateJetStream>;
  /** The seed list the services get in NATS_URL: every node. */
  readonly url: string;

  constructor(ports: readonly NodePorts[], dir: string, maxFileStore?: number) {
    this.nodes = new Map(
      ports.map((p, i) => {
        const serverName = `nats-${i + 1}`;
        const nodeDir = join(dir, serverName);
        mkdirSync(nodeDir, { recursive: true });
        const routes = ports.filter((other) => other !== p).map((other) => other.cluster);
        const node = new PrivateJetStream(p.client, nodeDir, join(dir, `${serverName}.log`), maxFileStore, {
          serverName,
          monitorPort: p.monitor,
          cluster: { name: CLUSTER, port: p.cluster, routes },
        });
        return [serverName, node];
      }),
    );
    this.url = ports.map((p) => `nats://127.0.0.1:${p.client}`).join(',');
  }

  get names(): string[] {
    return [...this.nodes.keys()];
  }

  node(name: string): PrivateJetStream {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no NATS node ${name}; the cluster has ${this.names.join(', ')}`);
    return node;
  }

  /**
   * Every node at once (a node alone waits for its routes), resolved once they have a meta leader: the
   * services create their streams as they start, and a create with no meta leader is refused.
   */
  async start(withinMs = 30_000): Promise<void> {
    await Promise.all([...this.nodes.values()].map((n) => n.start()));
    const missing = await this.settled(withinMs, 'meta');
    if (missing) throw new Error(`the NATS cluster did not form within ${withinMs / 1000} s: ${missing}`);
  }

  async stop(): Promise<void> {
    await Promise.all(
      [...this.nodes.values()].map((n) => {
        n.signal('SIGCONT'); // a frozen node would not see the SIGTERM
        return n.stop();
      }),
    );
  }

  /** Nodes running and not frozen: the only ones worth asking (a frozen node accepts, then never answers). */
  private live(): PrivateJetStream[] {
    return [...this.nodes.values()].filter((n) => n.running && !n.frozen);
  }

  private async withManager<T>(use: (jsm: Awaited<ReturnType<typeof jetstreamManager>>) => Promise<T>) {
    const nc = await connect({
      servers: this.live().map((n) => n.url),
      name: 'faults-cluster-watch',
      timeout: API_TIMEOUT_MS,
      maxReconnectAttempts: 0,
    });
    try {
      return await use(await jetstreamManager(nc, { timeout: API_TIMEOUT_MS, checkAPI: false }));
    } finally {
      await nc.close();
    }
  }

  /** The node leading a stream now; undefined while there is none (an election) or no answer came. */
  async streamLeader(stream: string): Promise<string | undefined> {
    try {
      return await this.withManager(async (jsm) => (await jsm.streams.info(stream)).cluster?.leader);
    } catch {
      return undefined;
    }
  }

  /**
   * Poll until a node other than `former` leads the stream; resolves with it and when it was first
   * seen (epoch ms), or undefined past `withinMs`.
   */
  async newStreamLeader(stream: string, former: string, withinMs: number) {
    const until = Date.now() + withinMs;
    while (Date.now() < until) {
      const leader = await this.streamLeader(stream);
      if (leader && leader !== former) return { leader, seenAt: Date.now() };
      await sleep(100);
    }
    return undefined;
  }

  /** The names of the client connections a node holds (each service names its connection). */
  async clientsOf(name: string): Promise<string[]> {
    const res = await fetch(`${monitorUrl(this.node(name))}/connz?limit=1024`, {
      signal: AbortSignal.timeout(2_000),
    });
    const body = (await res.json()) as { connections?: Array<{ name?: string }> };
    return [...new Set((body.connections ?? []).map((c) => c.name ?? '?'))].sort();
  }

  /**
   * What keeps the cluster from being whole, or undefined when it is: a meta leader, every stream the
   * services own at three copies with a leader and both replicas current, and every durable consumer
   * likewise (they inherit the stream's count).
   */
  async unsettled(what: 'meta' | 'streams' = 'streams'): Promise<string | undefined> {
    const asked = this.live()[0];
    if (!asked || this.live().length < this.nodes.size)
      return `${this.live().length} of ${this.nodes.size} nodes running`;
    try {
      const jsz = (await (
        await fetch(`${monitorUrl(asked)}/jsz`, {
          signal: AbortSignal.timeout(2_000),
        })
      ).json()) as { meta_cluster?: { leader?: string; cluster_size?: number } };
      if (!jsz.meta_cluster?.leader) return 'no meta leader';
      if (jsz.meta_cluster.cluster_size !== this.nodes.size)
        return `a meta group of ${jsz.meta_cluster.cluster_size ?? 0}`;
      if (what === 'meta') return undefined;
      return await this.withManager(async (jsm) => {
        for (const { name } of Object.values(Streams)) {
          const info: StreamInfo = await jsm.streams.info(name);
          const why = notWhole(`stream ${name}`, info.config.num_replicas, info.cluster);
          if (why) return why;
          for await (const consumer of jsm.consumers.list(name)) {
            const c: ConsumerInfo = consumer;
            const whyNot = notWhole(
              `consumer ${name}/${c.name}`,
              c.config.num_replicas || info.config.num_replicas,
              c.cluster,
            );
            if (whyNot) return whyNot;
          }
        }
        return undefined;
      });
    } catch (err) {
      return (err as Error).message;
    }
  }

  /** Poll `unsettled` until the cluster is whole; undefined then, else what was still missing at `withinMs`. */
  async settled(withinMs: number, what: 'meta' | 'streams' = 'streams'): Promise<string | undefined> {
    const until = Date.now() + withinMs;
    let why = await this.unsettled(what);
    while (why !== undefined && Date.now() < until) {
      await sleep(250);
      why = await this.unsettled(what);
    }
    return why;
  }
}

const monitorUrl = (node: PrivateJetStream) => `http://127.0.0.1:${node.node?.monitorPort}`;

function notWhole(what: string, replicas: number, cluster: StreamInfo['cluster']): string | undefined {
  if (replicas !== REPLICAS) return `${what} has ${replicas} replicas`;
  if (!cluster?.leader) return `${what} has no leader`;
  const current = (cluster.replicas ?? []).filter((r) => r.current && !r.offline).length;
  if (current < REPLICAS - 1) return `${what}: ${current} of ${REPLICAS - 1} replicas current`;
  return undefined;
}
