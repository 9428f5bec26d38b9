import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { canConnect } from '../../../infra/dev/tcp-probe.js';
import { waitFor } from '../../../infra/dev/wait-for.js';

const FILLER = 'FAULTS_FILLER';
/** A stream of the suite's own, to check that publishes are refused without touching the services' streams. */
const PROBE = 'FAULTS_PROBE';

/**
 * The fault suite's own nats-server with JetStream, from a config file in the run's temp dir. A
 * restart brings it back on the same port with the same store, as a supervisor would: streams,
 * consumers and unacknowledged messages survive it.
 */
export class PrivateJetStream {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  readonly url: string;
  private readonly configFile: string;

  constructor(
    private readonly binary: string,
    private readonly port: number,
    dir: string,
    private readonly logFile: string,
    /** JetStream's file-store ceiling, in bytes (the "disk" JetStream may use). */
    maxFileStore = 1024 * 1024 * 1024,
  ) {
    this.url = `nats://127.0.0.1:${port}`;
    const storeDir = join(dir, 'store');
    mkdirSync(storeDir, { recursive: true });
    this.configFile = join(dir, 'nats.conf');
    writeFileSync(
      this.configFile,
      [
        `listen: "127.0.0.1:${port}"`,
        `jetstream {`,
        `  store_dir: ${JSON.stringify(storeDir)}`,
        `  max_file_store: ${maxFileStore}`,
        `  max_memory_store: ${64 * 1024 * 1024}`,
        `}`,
        '',
      ].join('\n'),
    );
  }

  async start(): Promise<void> {
    if (this.child) return;
    const log = createWriteStream(this.logFile, { flags: 'a' });
    const child = spawn(this.binary, ['-c', this.configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    await waitFor('the private nats-server to listen', () => canConnect('127.0.0.1', this.port), {
      timeoutMs: 15_000,
      intervalMs: 50,
    });
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
    if (!this.child) return;
    this.child.kill('SIGTERM');
    const killer = setTimeout(() => this.child?.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(killer);
    this.child = undefined;
  }
}
