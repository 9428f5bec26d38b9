import { chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { postgresUserIds } from '../../../infra/dev/embedded-postgres.js';
import { ensurePatroniTools, type PatroniTools } from '../../../infra/dev/patroni-tools.js';
import { pollUntil } from '../../../infra/dev/wait-for.js';
import { LoggedProcess } from './logged-process.js';
import { PatroniNode } from './patroni-node.js';

const asRoot = process.getuid?.() === 0;

export interface PatroniPorts {
  etcdClient: number;
  etcdPeer: number;
  /** What the services connect to: HAProxy, passing each connection to the node that is primary. */
  proxy: number;
  nodes: readonly { pg: number; rest: number }[];
}

/** A member as Patroni's REST API lists it (GET /cluster). */
export interface Member {
  name: string;
  role: string;
  state: string;
  lag?: number | string;
  timeline?: number;
}

/**
 * PostgreSQL with automatic failover, on loopback, from existing engines (docs/decisions/ha.md): one
 * etcd as Patroni's store, two PostgreSQL nodes under Patroni with synchronous replication, and
 * HAProxy on one port sending each connection to the node whose Patroni answers `/primary` with 200.
 * The services are given HAProxy's address; a node can be killed and started again on its own data,
 * as a machine lost and brought back.
 */
export class PrivatePatroniCluster {
  private etcd: LoggedProcess | undefined;
  private haproxy: LoggedProcess | undefined;
  private tools: PatroniTools | undefined;
  private readonly members = new Map<string, PatroniNode>();

  constructor(
    private readonly ports: PatroniPorts,
    private readonly dir: string,
  ) {}

  databaseUrl(database: string): string {
    return `postgresql://postgres@127.0.0.1:${this.ports.proxy}/${database}`;
  }

  get names(): string[] {
    return [...this.members.keys()];
  }

  node(name: string): PatroniNode {
    const node = this.members.get(name);
    if (!node) throw new Error(`no PostgreSQL node ${name}; the cluster has ${this.names.join(', ')}`);
    return node;
  }

  /** etcd, then the nodes (the first to take the lock initialises, the other copies it), then HAProxy. */
  async start(): Promise<void> {
    this.tools ??= await ensurePatroniTools((line) => console.error(`› ${line}`));
    const tools = this.tools;
    const ids: { uid?: number; gid?: number } = asRoot ? postgresUserIds() : {};
    mkdirSync(this.dir, { recursive: true });
    if (!this.etcd?.running) this.startEtcd(tools);
    await pollUntil(async () => (await this.etcdHealthy()) === true, { timeoutMs: 30_000, intervalMs: 100 });
    if (this.members.size === 0) {
      this.ports.nodes.forEach((ports, i) => {
        const name = `pg-${i + 1}`;
        const nodeDir = join(this.dir, name);
        mkdirSync(nodeDir, { recursive: true, mode: 0o700 });
        if (ids.uid !== undefined) chownSync(nodeDir, ids.uid, ids.gid ?? -1);
        const node = new PatroniNode(name, ports, nodeDir, tools, ids);
        node.writeConfig(this.ports.etcdClient);
        this.members.set(name, node);
      });
    }
    for (const node of this.members.values()) node.start();
    if (!this.haproxy?.running) this.startHaproxy(tools);
    const missing = await this.settled(120_000);
    if (missing) throw new Error(`the PostgreSQL cluster did not form: ${missing}`);
  }

  private startEtcd(tools: PatroniTools): void {
    const { etcdClient, etcdPeer } = this.ports;
    const client = `http://127.0.0.1:${etcdClient}`;
    const peer = `http://127.0.0.1:${etcdPeer}`;
    this.etcd = new LoggedProcess(
      tools.etcd,
      [
        '--name=etcd-1',
        `--data-dir=${join(this.dir, 'etcd')}`,
        `--listen-client-urls=${client}`,
        `--advertise-client-urls=${client}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=etcd-1=${peer}`,
        '--log-level=error',
      ],
      join(this.dir, 'etcd.log'),
      { env: { PATH: process.env.PATH } },
    );
  }

  private async etcdHealthy(): Promise<boolean> {
    try {
      const res = await fetch(`http://127.0.0.1:${this.ports.etcdClient}/health`, {
        signal: AbortSignal.timeout(1_000),
      });
      return res.ok;
    } catch {
      return false;
    }
  }

  /**
   * HAProxy checks each node's Patroni every 500 ms: two failed checks and the node is out, its
   * connections cut (a client must not stay on a node that is no longer primary); one good check and
   * the new primary takes connections.
   */
  private startHaproxy(tools: PatroniTools): void {
    const configFile = join(this.dir, 'haproxy.cfg');
    const servers = [...this.members.values()].map(
      (n) => `  server ${n.name} 127.0.0.1:${n.ports.pg} check port ${n.ports.rest}`,
    );
    writeFileSync(
      configFile,
      [
        'global',
        '  maxconn 2000',
        'defaults',
        '  mode tcp',
        '  timeout connect 2s',
        '  timeout client 30m',
        '  timeout server 30m',
        '  timeout check 1s',
        // No second try on a refused connection: HAProxy waits a second before each, and three of them
        // outlasted the services' 3 s connect timeout, so writes answered 503 only after 3 s. Refused at
        // once, a client retries later, by when the check has moved on to the new primary.
        '  retries 0',
        'listen primary',
        `  bind 127.0.0.1:${this.ports.proxy}`,
        // 200 means "holds the leader key"; Patroni says so as soon as it takes the key, seconds before
        // PostgreSQL has finished its promotion, and writes sent then fail as read-only. The body's role
        // comes from pg_is_in_recovery(): both together mean a primary that takes writes. Read whole,
        // so Patroni never writes to a checker that has hung up (that filled its log with resets).
        '  option httpchk',
        '  http-check send meth GET uri /primary',
        '  http-check expect status 200',
        '  http-check expect rstring "\\"role\\": \\"(master|primary)\\""',
        '  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions',
        ...servers,
        '',
      ].join('\n'),
    );
    this.haproxy = new LoggedProcess(
      tools.haproxy,
      ['-db', '-f', configFile],
      join(this.dir, 'haproxy.log'),
      {
        env: { PATH: process.env.PATH },
      },
    );
  }

  /** Every member as Patroni lists it, asked of any node that answers; [] when none does. */
  async cluster(): Promise<Member[]> {
    for (const node of this.members.values()) {
      if (!node.running) continue;
      try {
        const res = await fetch(`${node.restUrl}/cluster`, { signal: AbortSignal.timeout(1_000) });
        if (res.ok) return ((await res.json()) as { members?: Member[] }).members ?? [];
      } catch {
        // ask the next
      }
    }
    return [];
  }

  /** The member leading now (running as primary), if any. */
  async primary(): Promise<string | undefined> {
    const members = await this.cluster();
    return members.find((m) => m.role === 'leader' && m.state === 'running')?.name;
  }

  /** Poll until a member other than `former` is primary and HAProxy sends connections to it. */
  async newPrimary(former: string, withinMs: number): Promise<{ name: string; seenAt: number } | undefined> {
    const until = Date.now() + withinMs;
    while (Date.now() < until) {
      const name = await this.primary();
      if (name && name !== former && (await this.answersWrites())) return { name, seenAt: Date.now() };
      await sleep(100);
    }
    return undefined;
  }

  /** True when a connection through HAProxy reaches a primary (not in recovery). */
  private async answersWrites(): Promise<boolean> {
    const { default: pg } = await import('pg');
    const client = new pg.Client({
      connectionString: this.databaseUrl('postgres'),
      connectionTimeoutMillis: 1_000,
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ primary: boolean }>('SELECT NOT pg_is_in_recovery() AS primary');
      return rows[0]?.primary === true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /**
   * What keeps the cluster from being whole, or undefined when it is: every node running, one leader,
   * the others streaming as synchronous standby, and HAProxy reaching the primary.
   */
  async unsettled(): Promise<string | undefined> {
    const members = await this.cluster();
    if (members.length < this.members.size) return `${members.length} of ${this.members.size} members listed`;
    const leader = members.find((m) => m.role === 'leader');
    if (leader?.state !== 'running') return 'no running leader';
    // Patroni 3.0 says "running" of a replica, later versions "streaming"; sync_standby means connected.
    const behind = members.filter(
      (m) => m !== leader && !(m.role === 'sync_standby' && ['running', 'streaming'].includes(m.state)),
    );
    if (behind.length) return behind.map((m) => `${m.name} is ${m.role}, ${m.state}`).join('; ');
    if (!(await this.answersWrites())) return 'HAProxy does not reach the primary yet';
    return undefined;
  }

  /** Poll `unsettled` until the cluster is whole; undefined then, else what was still missing at `withinMs`. */
  async settled(withinMs: number): Promise<string | undefined> {
    const until = Date.now() + withinMs;
    let why = await this.unsettled();
    while (why !== undefined && Date.now() < until) {
      await sleep(250);
      why = await this.unsettled();
    }
    return why;
  }

  async stop(): Promise<void> {
    await this.haproxy?.stop('SIGTERM', 5_000);
    await Promise.all([...this.members.values()].map((n) => n.stop()));
    await this.etcd?.stop('SIGTERM', 5_000);
  }
}
