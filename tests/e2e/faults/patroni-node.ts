import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PatroniTools } from '../../../infra/dev/patroni-tools.js';
import { pollUntil } from '../../../infra/dev/wait-for.js';
import { LoggedProcess } from './logged-process.js';

/** Patroni's cluster name (its keys in etcd live under /service/<scope>). */
const SCOPE = 'tm-faults';

/**
 * One PostgreSQL node under Patroni: its own data directory, PostgreSQL and REST ports. Patroni starts
 * PostgreSQL in a session of its own, so losing the machine means killing both.
 */
export class PatroniNode {
  private patroni: LoggedProcess | undefined;
  readonly dataDir: string;
  private readonly configFile: string;

  constructor(
    readonly name: string,
    readonly ports: { pg: number; rest: number },
    private readonly dir: string,
    private readonly tools: PatroniTools,
    private readonly ids: { uid?: number; gid?: number },
  ) {
    this.dataDir = join(dir, 'data');
    this.configFile = join(dir, 'patroni.yml');
  }

  get running(): boolean {
    return this.patroni?.running ?? false;
  }

  get restUrl(): string {
    return `http://127.0.0.1:${this.ports.rest}`;
  }

  /** Patroni's configuration; JSON is YAML too. */
  writeConfig(etcdClient: number): void {
    const { pg, rest } = this.ports;
    const trustLoopback = [
      'local all all trust',
      'host all all 127.0.0.1/32 trust',
      'host replication replicator 127.0.0.1/32 trust',
    ];
    const config = {
      scope: SCOPE,
      name: this.name,
      log: { level: 'WARNING' },
      restapi: { listen: `127.0.0.1:${rest}`, connect_address: `127.0.0.1:${rest}` },
      etcd3: { hosts: [`127.0.0.1:${etcdClient}`] },
      bootstrap: {
        dcs: {
          // A primary that stops renewing its lease for 10 s is replaced; Patroni checks every 2 s.
          ttl: 10,
          loop_wait: 2,
          retry_timeout: 5,
          maximum_lag_on_failover: 1024 * 1024,
          // A commit returns once the standby has it: an acknowledged write survives the primary's loss.
          // Not strict: alone, a primary goes on accepting writes rather than stopping the service.
          synchronous_mode: true,
          postgresql: {
            use_pg_rewind: true,
            parameters: {
              wal_level: 'replica',
              hot_standby: 'on',
              wal_log_hints: 'on',
              max_wal_senders: 10,
              max_replication_slots: 10,
              max_connections: 200,
              // The suite's own faults would otherwise log pages of cut connections.
              log_min_messages: 'fatal',
              log_min_error_statement: 'panic',
              log_checkpoints: 'off',
            },
          },
        },
        initdb: [{ encoding: 'UTF8' }, { auth: 'trust' }],
      },
      postgresql: {
        listen: `127.0.0.1:${pg}`,
        connect_address: `127.0.0.1:${pg}`,
        data_dir: this.dataDir,
        bin_dir: this.tools.pgBinDir,
        pgpass: join(this.dir, 'pgpass'),
        authentication: {
          superuser: { username: 'postgres', password: 'postgres' },
          replication: { username: 'replicator', password: 'replicator' },
          rewind: { username: 'postgres', password: 'postgres' },
        },
        parameters: { unix_socket_directories: this.dir },
        pg_hba: trustLoopback,
        // A new standby copies the primary at once: pg_basebackup's default spread checkpoint waits out
        // most of checkpoint_timeout (4.5 min) when the primary has just been written to.
        basebackup: { checkpoint: 'fast' },
      },
    };
    writeFileSync(this.configFile, JSON.stringify(config, null, 2));
    if (this.ids.uid !== undefined) chownSync(this.configFile, this.ids.uid, this.ids.gid ?? -1);
  }

  start(): void {
    if (this.running) return;
    this.patroni = new LoggedProcess(this.tools.patroni, [this.configFile], join(this.dir, 'patroni.log'), {
      ...this.ids,
      env: { PATH: process.env.PATH, HOME: this.dir, LANG: 'C.UTF-8' },
    });
  }

  /** The postmaster's pid from its pid file, if one is running. */
  private postmasterPid(): number | undefined {
    const pidFile = join(this.dataDir, 'postmaster.pid');
    if (!existsSync(pidFile)) return undefined;
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    try {
      process.kill(pid, 0);
      return pid;
    } catch {
      return undefined;
    }
  }

  /** The machine lost: SIGKILL to Patroni and to PostgreSQL's postmaster (its backends follow it). */
  async kill(): Promise<void> {
    const postmaster = this.postmasterPid();
    this.patroni?.signal('SIGKILL');
    if (postmaster) process.kill(postmaster, 'SIGKILL');
    await this.patroni?.exited;
    // Its backends notice the postmaster gone and exit; a new postmaster needs them gone first.
    await pollUntil(async () => !this.backendsRunning(), { timeoutMs: 10_000, intervalMs: 50 });
  }

  private backendsRunning(): boolean {
    try {
      return execFileSync('pgrep', ['-f', `postgres.*${this.dataDir}`], { encoding: 'utf8' }).trim() !== '';
    } catch {
      return false; // pgrep exits 1 when nothing matches
    }
  }

  /** SIGTERM: Patroni shuts PostgreSQL down (fast) and leaves the cluster. */
  async stop(): Promise<void> {
    await this.patroni?.stop('SIGTERM', 15_000);
    const postmaster = this.postmasterPid();
    if (postmaster) process.kill(postmaster, 'SIGKILL');
  }
}
