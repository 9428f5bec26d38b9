import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDatabase } from '../../../infra/dev/ensure-database.js';
import { migrateService } from '../../../infra/dev/migrate-service.js';
import { requireNatsServer } from '../../../infra/dev/nats-server.js';
import { runCommand } from '../../../infra/dev/run-command.js';
import { freePort } from '../../../infra/dev/tcp-probe.js';
import { pollUntil } from '../../../infra/dev/wait-for.js';
import { PrivateJetStream } from './private-jetstream.js';
import { PrivateNatsCluster } from './private-nats-cluster.js';
import { PrivatePatroniCluster } from './private-patroni-cluster.js';
import { PrivatePostgres } from './private-postgres.js';
import { PROCESSES, type ProcessName, StackProcess } from './stack-process.js';
import { WebhookReceiver } from './webhook-receiver.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface Tenant {
  tenantId: string;
  apiKey: string;
  owner: { email: string; password: string };
}

/** What each stream reserves of the store on creation: the least the services accept. */
export const STREAM_MB = 16;

export interface FaultStackOptions {
  /** GATEWAY_REQUEST_TIMEOUT_MS: the gateway's deadline per service call. */
  requestTimeoutMs: number;
  breakerResetMs: number;
  /** JetStream's file-store ceiling in bytes. */
  maxFileStore?: number;
  /** Told each start-up step as it ends, with the time since the start. */
  progress?: (step: string) => void;
  /** Settings over the suite's own for every process; an undefined value leaves the service's default. */
  env?: NodeJS.ProcessEnv;
  /**
   * 1 (the default): one nats-server. 3: a three-node JetStream cluster on loopback, the services given
   * the seed list and JETSTREAM_REPLICAS=3.
   */
  natsNodes?: 1 | 3;
  /**
   * `server` (the default): one PostgreSQL. `patroni`: two nodes under Patroni with synchronous
   * replication and etcd, the services connected through HAProxy to whichever is primary.
   */
  postgres?: 'server' | 'patroni';
}

/** How long a stack start, or a row, waits for the cluster's streams to have all three copies current. */
export const CLUSTER_SETTLED_WITHIN_MS = 60_000;

/** `n` free ports, no two alike (two asks in a row can be given the same one). */
async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/**
 * A whole stack of the suite's own: a private PostgreSQL and nats-server (or a three-node NATS
 * cluster) in a temp dir, on free ports, every service and the gateway as its own process, the
 * databases migrated with `prisma migrate deploy` as the launcher does, and one tenant made with the
 * admin command, with a webhook endpoint for `memory.retained` at the suite's own receiver. Faults act
 * on its parts.
 */
export class FaultStack {
  readonly processes: Record<ProcessName, StackProcess>;
  readonly baseUrl: string;
  private constructor(
    readonly dir: string,
    readonly options: FaultStackOptions,
    private readonly db: PrivatePostgres | PrivatePatroniCluster,
    private readonly bus: PrivateJetStream | PrivateNatsCluster,
    readonly env: NodeJS.ProcessEnv,
    gatewayPort: number,
  ) {
    const log = StackProcess.logTo(join(dir, 'services.log'));
    this.processes = Object.fromEntries(
      PROCESSES.map((name) => [name, new StackProcess(name, env, log)]),
    ) as Record<ProcessName, StackProcess>;
    this.baseUrl = `http://127.0.0.1:${gatewayPort}`;
  }

  tenant: Tenant = { tenantId: '', apiKey: '', owner: { email: '', password: '' } };
  /** Where the tenant's endpoint delivers every retained write (webhook-receiver.ts). */
  webhooks: WebhookReceiver | undefined;
  get memoryDbUrl() {
    return this.db.databaseUrl('tm_memory');
  }
  get billingDbUrl() {
    return this.db.databaseUrl('tm_billing');
  }

  /** The single PostgreSQL of the default stack. */
  get pg(): PrivatePostgres {
    if (this.db instanceof PrivatePostgres) return this.db;
    throw new Error('this stack runs PostgreSQL under Patroni: the row needs a stack with postgres: server');
  }

  /** The Patroni cluster of a stack started with postgres: 'patroni'. */
  get patroni(): PrivatePatroniCluster {
    if (this.db instanceof PrivatePatroniCluster) return this.db;
    throw new Error('this stack runs a single PostgreSQL: the row needs a stack with postgres: patroni');
  }

  /** The single nats-server of the default stack. */
  get nats(): PrivateJetStream {
    if (this.bus instanceof PrivateJetStream) return this.bus;
    throw new Error('this stack runs a NATS cluster: the row needs a stack with natsNodes: 1');
  }

  /** The three-node NATS cluster of a stack started with natsNodes: 3. */
  get cluster(): PrivateNatsCluster {
    if (this.bus instanceof PrivateNatsCluster) return this.bus;
    throw new Error('this stack runs a single nats-server: the row needs a stack with natsNodes: 3');
  }

  /** Undefined once NATS can take a row (always, for one server), else what the cluster still misses. */
  async natsUnsettled(withinMs = CLUSTER_SETTLED_WITHIN_MS): Promise<string | undefined> {
    return this.bus instanceof PrivateNatsCluster ? this.bus.settled(withinMs) : undefined;
  }

  static async start(options: FaultStackOptions): Promise<FaultStack> {
    const dir = mkdtempSync(join(tmpdir(), 'tm-faults-'));
    // As root, embedded PostgreSQL runs as user postgres, which must be able to enter the run's dir.
    chmodSync(dir, 0o755);
    requireNatsServer(); // before anything starts: a missing binary says how to install it
    const clustered = options.natsNodes === 3;
    const failover = options.postgres === 'patroni';
    const ports = await freePorts((clustered ? 11 : 3) + (failover ? 6 : 0));
    const at = (i: number) => ports[i] as number;
    const [pgPort, gatewayPort] = [at(0), at(1)];
    const natsPort = (i: number) => at(2 + i);
    const patroniPort = (i: number) => at((clustered ? 11 : 3) + i);
    const pg = failover
      ? new PrivatePatroniCluster(
          {
            proxy: pgPort,
            etcdClient: patroniPort(0),
            etcdPeer: patroniPort(1),
            nodes: [
              { pg: patroniPort(2), rest: patroniPort(3) },
              { pg: patroniPort(4), rest: patroniPort(5) },
            ],
          },
          join(dir, 'pg'),
        )
      : new PrivatePostgres(
          { host: '127.0.0.1', port: pgPort, user: 'postgres', password: '' },
          join(dir, 'pg'),
        );
    const nats = clustered
      ? new PrivateNatsCluster(
          [0, 1, 2].map((i) => ({ client: natsPort(i), cluster: natsPort(i + 3), monitor: natsPort(i + 6) })),
          join(dir, 'nats'),
          options.maxFileStore,
        )
      : new PrivateJetStream(natsPort(0), join(dir, 'nats'), join(dir, 'nats.log'), options.maxFileStore);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      LOG_LEVEL: 'info',
      // The seed list, on a cluster: a service connects to any node and moves on when it goes.
      NATS_URL: nats.url,
      // Every stream and durable consumer on all three nodes, so one node's loss loses no message.
      ...(clustered && { JETSTREAM_REPLICAS: '3' }),
      MEMORY_DATABASE_URL: pg.databaseUrl('tm_memory'),
      BILLING_DATABASE_URL: pg.databaseUrl('tm_billing'),
      TELEMETRY_DATABASE_URL: pg.databaseUrl('tm_telemetry'),
      TEMPLATE_DATABASE_URL: pg.databaseUrl('tm_template'),
      WEBHOOKS_DATABASE_URL: pg.databaseUrl('tm_webhooks'),
      GATEWAY_DATABASE_URL: pg.databaseUrl('tm_gateway'),
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_PORT: String(gatewayPort),
      GATEWAY_REQUEST_TIMEOUT_MS: String(options.requestTimeoutMs),
      BREAKER_RESET_MS: String(options.breakerResetMs),
      GATEWAY_SECRET_KEY: randomBytes(36).toString('base64url'),
      WEBHOOKS_SECRET_KEY: randomBytes(36).toString('base64url'),
      // The suite's receiver listens on 127.0.0.1.
      WEBHOOKS_ALLOW_LOOPBACK: 'true',
      // An attempt's bound: twice it, and the service's 30 s margin, is the lease of a delivery in flight:
      // what a killed instance was sending is sent again 34 s later (with the 10 s default, 50 s).
      WEBHOOKS_ATTEMPT_TIMEOUT_MS: '2000',
      OUTBOX_RELAY_INTERVAL_MS: '200',
      // Streams reserve their size limit on creation; the default (1 GiB each) would not fit the
      // suite's small store (STACK.maxFileStore), which the jetstream-full row fills. 16 MiB is the
      // least the services accept.
      JETSTREAM_MAX_MB_PER_STREAM: String(STREAM_MB),
      // The rows' loads are far below the defaults; keep them from ever answering 429.
      RATE_LIMIT_PER_KEY: '100000',
      RATE_LIMIT_PER_TENANT: '100000',
      ...Object.fromEntries(PROCESSES.map((name) => [`${name.toUpperCase()}_METRICS_PORT`, '0'])),
    };
    for (const [name, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
    const stack = new FaultStack(dir, options, pg, nats, env, gatewayPort);
    const began = Date.now();
    const step = (name: string) =>
      options.progress?.(`${name} (${((Date.now() - began) / 1000).toFixed(1)} s)`);
    try {
      await pg.start();
      step(
        failover
          ? `private PostgreSQL, two nodes under Patroni, through HAProxy on :${pgPort}`
          : `private PostgreSQL on :${pgPort}`,
      );
      await nats.start();
      step(clustered ? `private NATS cluster on ${nats.url}` : `private nats-server on ${nats.url}`);
      await stack.migrate();
      step('databases migrated');
      // All at once, with the tenant's creation (it needs only the gateway's database): the gateway
      // answers 503 until the services it calls are up, which healthy-before-the-row waits out.
      const [tenant] = await Promise.all([
        stack.bootstrapTenant('faults', 'owner@faults.test'),
        ...PROCESSES.map((p) => stack.processes[p].start()),
      ]);
      stack.tenant = tenant;
      step(`services, gateway on :${gatewayPort} and a tenant`);
      stack.webhooks = await WebhookReceiver.start();
      stack.webhooks.trust(await stack.registerEndpoint(tenant, stack.webhooks.url));
      step('a webhook endpoint');
      if (clustered) {
        const missing = await stack.natsUnsettled();
        if (missing) throw new Error(`the NATS cluster did not settle: ${missing}`);
        step('every stream and consumer at three current replicas');
      }
    } catch (err) {
      await stack.stop({ keepDir: true });
      throw new Error(`the fault stack did not start (logs in ${dir}): ${(err as Error).message}`);
    }
    return stack;
  }

  /** Create and migrate each service's database, as the launcher does (`prisma migrate deploy`). */
  private async migrate(): Promise<void> {
    await Promise.all(
      PROCESSES.map(async (name) => {
        const databaseVar = `${name.toUpperCase()}_DATABASE_URL`;
        const databaseUrl = this.env[databaseVar] as string;
        await ensureDatabase(databaseUrl);
        await migrateService(
          { name, dir: join(root, 'services', name), databaseVar, databaseUrl },
          // Without it the Prisma CLI idles about 10 s on its update check before it exits.
          { ...this.env, CHECKPOINT_DISABLE: '1' },
        );
      }),
    );
  }

  /**
   * A tenant with managed storage, consent and an API key, from the gateway's admin command, with an
   * owner who can log in (to register the webhook endpoint).
   */
  async bootstrapTenant(name: string, email: string): Promise<Tenant> {
    const stdout = await runCommand(
      process.execPath,
      [
        '--import',
        'tsx',
        'services/gateway/src/admin/cli.ts',
        'bootstrap',
        '--json',
        '--name',
        name,
        '--email',
        email,
      ],
      { cwd: root, env: this.env, label: 'bootstrap', quiet: true },
    );
    for (const line of stdout.trim().split('\n').reverse()) {
      try {
        const parsed = JSON.parse(line) as {
          api_key?: string;
          tenant_id?: string;
          owner_email?: string;
          owner_password?: string;
        };
        if (parsed.api_key && parsed.tenant_id && parsed.owner_email && parsed.owner_password)
          return {
            tenantId: parsed.tenant_id,
            apiKey: parsed.api_key,
            owner: { email: parsed.owner_email, password: parsed.owner_password },
          };
      } catch {
        // a log line
      }
    }
    throw new Error('bootstrap printed no tenant');
  }

  /**
   * The owner logs in and registers an endpoint for `memory.retained` at `url`, through the gateway
   * as a customer would; returns its signing secret (shown once). Tried again while the stack settles
   * (the gateway answers 503 until the services it calls are up).
   */
  async registerEndpoint(tenant: Tenant, url: string, description = 'fault suite'): Promise<string> {
    const post = async (path: string, body: unknown, token?: string) => {
      const res = await fetch(`${this.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token && { authorization: `Bearer ${token}` }),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(5_000),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    let secret: string | undefined;
    let last = '';
    await pollUntil(
      async () => {
        try {
          const login = await post('/api/v1/control/sessions', tenant.owner);
          if (login.status !== 201) throw new Error(`login: ${login.status}`);
          const created = await post(
            '/api/v1/control/webhook-endpoints',
            { url, events: ['memory.retained'], description },
            String(login.body.token),
          );
          if (created.status !== 201) throw new Error(`endpoint: ${created.status}`);
          secret = String(created.body.secret);
          return true;
        } catch (err) {
          last = (err as Error).message;
          return false;
        }
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    if (!secret) throw new Error(`no webhook endpoint registered (${last})`);
    return secret;
  }

  /** Everything down (gateway first), then the temp dir removed unless asked to keep it. */
  async stop({ keepDir = false }: { keepDir?: boolean } = {}): Promise<void> {
    await this.processes.gateway.kill('SIGTERM', 10_000);
    await Promise.all(
      PROCESSES.filter((p) => p !== 'gateway').map((p) => this.processes[p].kill('SIGTERM', 10_000)),
    );
    await this.webhooks?.stop();
    await this.bus.stop();
    await this.db.stop();
    if (!keepDir) rmSync(this.dir, { recursive: true, force: true });
  }
}
