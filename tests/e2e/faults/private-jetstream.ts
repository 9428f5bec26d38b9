import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { type SpawnedNatsServer, spawnNatsServer } from '../../../infra/dev/nats-server.js';

const FILLER = 'FAULTS_FILLER';
/** A stream of the suite's own, to check that publishes are refused without touching the services' streams. */
const PROBE = 'FAULTS_PROBE';

/** What makes a server one node of a cluster (private-nats-cluster.ts). */
export interface ClusterNode {
  serverName: string;
  monitorPort: number;
  cluster: { name: string; port: number; routes: readonly number[] };
}

/**
 * The fault suite's own nats-server with JetStream, its limits from a config file in the run's temp
 * dir. A restart brings it back on the same port with the same store, as a supervisor would: streams,
 * consumers and unacknowledged messages survive it. With `node`, it is one node of a cluster.
 */
export class PrivateJetStream {
  private server: SpawnedNatsServer | undefined;
  readonly url: string;
  /** SIGSTOPped and not yet thawed. */
  frozen = false;
  private readonly storeDir: string;
  private readonly configFile: string;

  constructor(
    private readonly port: number,
    dir: string,
    private readonly logFile: string,
    /** JetStream's file-store ceiling, in bytes (the "disk" JetStream may use). */
    maxFileStore = 1024 * 1024 * 1024,
    readonly node?: ClusterNode,
  ) {
    this.url = `nats://127.0.0.1:${port}`;
    this.storeDir = join(dir, 'store');
    mkdirSync(this.storeDir, { recursive: true });
    this.configFile = join(dir, 'nats.conf');
    // The limits only: listen address and store dir are the flags every local nats-server gets.
    writeFileSync(
      this.configFile,
      [
        `jetstream {`,
        `  max_file_store: ${maxFileStore}`,
        `  max_memory_store: ${64 * 1024 * 1024}`,
        `}`,
        // As infra/nats/cluster.conf: a peer or client that stops answering is given up on in about 30 s.
        ...(node ? ['ping_interval: "10s"', 'ping_max: 3'] : []),
        '',
      ].join('\n'),
    );
  }

  async start(): Promise<void> {
    if (this.server) return;
    this.frozen = false;
    this.server = await spawnNatsServer({
      port: this.port,
      storeDir: this.storeDir,
      configFile: this.configFile,
      logFile: this.logFile,
      ...this.node,
    });
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  /**
   * A full disk, as JetStream sees it: a stream of filler messages grows until the server refuses one
   * for want of file store (`max_file_store`), after which every stream's publishes fail with
   * "insufficient resources". Resolves with the bytes it took. Checked against nats-server 2.9.10.
   */
  async fill(): Promise<number> {
    const nc = await connect({ servers: this.url, name: 'faults-filler' });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: PROBE, subjects: [`${PROBE}.>`] });
      await jsm.streams.add({ name: FILLER, subjects: [`${FILLER}.>`] });
      const js = jetstream(nc);
      const chunk = new Uint8Array(512 * 1024);
      let bytes = 0;
      for (;;) {
        try {
          await js.publish(`${FILLER}.x`, chunk);
          bytes += chunk.length;
        } catch (err) {
          if (/insufficient resources/i.test((err as Error).message)) return bytes;
          throw err;
        }
      }
    } finally {
      await nc.close();
    }
  }

  /** Why a publish to another stream is refused now (the fault is in force); undefined if it is not. */
  async refusal(): Promise<string | undefined> {
    const nc = await connect({ servers: this.url, name: 'faults-probe' });
    try {
      await jetstream(nc).publish(`${PROBE}.x`, new Uint8Array(0));
      return undefined;
    } catch (err) {
      return (err as Error).message;
    } finally {
      await nc.close();
    }
  }

  /** The disk freed: the filler stream deleted. */
  async free(): Promise<void> {
    const nc = await connect({ servers: this.url, name: 'faults-filler' });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.delete(FILLER);
      await jsm.streams.delete(PROBE);
    } finally {
      await nc.close();
    }
  }

  /** SIGTERM: nats-server closes its clients and flushes the store. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await server?.stop();
  }

  /** SIGKILL, as when its machine is lost: the kernel closes its sockets, so its clients see it go. */
  async kill(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await server?.kill();
  }

  /**
   * SIGSTOP freezes it with its sockets open, as a partition looks from either side: only missed pings
   * and unanswered requests tell. SIGCONT thaws it.
   */
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void {
    if (!this.server) return;
    this.server.child.kill(signal);
    this.frozen = signal === 'SIGSTOP';
  }
}
