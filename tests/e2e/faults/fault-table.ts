import { setTimeout as sleep } from 'node:timers/promises';
import { pollUntil } from '../../../infra/dev/wait-for.js';
import { CLUSTER_FAULTS } from './cluster-faults.js';
import { FAILOVER_FAULTS } from './failover-faults.js';
import type { FaultStack } from './fault-stack.js';
import { PROCESSES, type ProcessName } from './stack-process.js';
import { outboxBacklog } from './totals.js';

export interface FaultContext {
  stack: FaultStack;
  /** The row's writes' idempotency keys (and so event ids) start with it. */
  keyPrefix: string;
  /** Something worth a line in the report that is not by itself a failure. */
  note: (text: string) => void;
  /** Something the fault itself showed that fails the row. */
  fail: (text: string) => void;
  /** When the first write the load sent at or after `since` (epoch ms) was acknowledged, if one was yet. */
  firstWriteAnswered: (since: number) => number | undefined;
}

/**
 * Which failures without an HTTP answer a fault may cause the client:
 * - `none`: the gateway stays up, so every failure must be an answer (a retryable 503/504);
 * - `refused`: the gateway is stopped on purpose; a connection refused while it is down is expected,
 *   a connection cut while a request was in flight is not (a graceful stop must finish what it took);
 * - `any`: the gateway is killed outright; requests it held are cut.
 */
export type ConnectionErrors = 'none' | 'refused' | 'any';

export interface Fault {
  id: string;
  /** The row's label in docs/reliability.md. */
  title: string;
  connectionErrors: ConnectionErrors;
  /** The NATS the row runs on: one server (the default), or the three-node cluster. */
  nats?: 'server' | 'cluster';
  /** The PostgreSQL the row runs on: one server (the default), or two nodes under Patroni. */
  postgres?: 'server' | 'patroni';
  /** Inject the fault, then lift it as a supervisor or an operator would; resolves with when it was lifted. */
  run: (ctx: FaultContext) => Promise<number>;
  /**
   * What to wait for once the stack is healthy again, apart from the time to healthy (a restarted NATS
   * node catching up); it notes or fails as `run` does.
   */
  afterHealthy?: (ctx: FaultContext, lifted: number) => Promise<void>;
}

/** How long a killed process stays down before the suite starts it again. */
const RESTART_AFTER_MS = 1_000;
/** How long PostgreSQL stays stopped in the "stop, then start" row. */
const PG_STOPPED_MS = 10_000;
/** How long JetStream's store stays full. */
const STORE_FULL_MS = 10_000;
/** SIGTERM gets this long to end the process before it is SIGKILLed (and the row notes it). */
const GRACE_MS = 15_000;

const restarted = async (ctx: FaultContext, name: ProcessName) => {
  const lifted = Date.now();
  await ctx.stack.processes[name].start();
  return lifted;
};

const killNine = (name: ProcessName): Fault => ({
  id: `kill9-${name}`,
  title: `kill -9 ${name}`,
  connectionErrors: name === 'gateway' ? 'any' : 'none',
  run: async (ctx) => {
    if (name === 'webhooks') await untilDeliveriesInFlight(ctx);
    await ctx.stack.processes[name].kill('SIGKILL');
    await sleep(RESTART_AFTER_MS);
    return restarted(ctx, name);
  },
});

/**
 * Land the webhooks service's kill on deliveries it has sent and not yet recorded (the receiver
 * answers each after 100 ms): they must come again once their lease ends, under the same webhook-id.
 * Deliveries go out in bursts (a fetch gathers a second of events), so the kill waits for one, up to 10 s.
 */
async function untilDeliveriesInFlight(ctx: FaultContext): Promise<void> {
  const receiver = ctx.stack.webhooks;
  const prefix = `${ctx.keyPrefix}-`;
  await pollUntil(async () => (receiver?.inFlight(prefix) ?? 0) > 0, { timeoutMs: 10_000, intervalMs: 5 });
  // Nothing runs between this and the kill (the receiver answers only from a timer): each of these
  // must come again (run-row.ts waits for them).
  const cut = receiver?.cutInFlight(prefix) ?? 0;
  ctx.note(
    cut > 0
      ? `killed with ${cut} of the row's deliveries sent and unanswered`
      : "none of the row's deliveries in flight within 10 s: killed between two",
  );
}

const sigterm = (name: ProcessName): Fault => ({
  id: `sigterm-${name}`,
  title: `SIGTERM ${name}`,
  connectionErrors: name === 'gateway' ? 'refused' : 'none',
  run: async (ctx) => {
    const started = Date.now();
    const { forced, code } = await ctx.stack.processes[name].kill('SIGTERM', GRACE_MS);
    const took = `${Date.now() - started} ms`;
    // A graceful stop ends by itself, with 0: not by our SIGKILL, nor by its own shutdown deadline (exit 1).
    if (forced) ctx.fail(`still running ${GRACE_MS / 1000} s after SIGTERM: SIGKILLed`);
    else if (code !== 0) ctx.fail(`SIGTERM: exited ${code} after ${took}, not 0`);
    else ctx.note(`stopped in ${took}`);
    return restarted(ctx, name);
  },
});

export const FAULTS: Fault[] = [
  ...PROCESSES.map(killNine),
  ...PROCESSES.map(sigterm),
  {
    id: 'pg-restart',
    title: 'PostgreSQL restart',
    connectionErrors: 'none',
    run: async ({ stack }) => {
      await stack.pg.stop();
      const lifted = Date.now();
      await stack.pg.start();
      return lifted;
    },
  },
  {
    id: 'pg-stop-10s',
    title: `PostgreSQL stopped ${PG_STOPPED_MS / 1000} s`,
    connectionErrors: 'none',
    run: async ({ stack }) => {
      await stack.pg.stop();
      await sleep(PG_STOPPED_MS);
      const lifted = Date.now();
      await stack.pg.start();
      return lifted;
    },
  },
  {
    id: 'nats-restart',
    title: 'NATS restart (same port, same store)',
    connectionErrors: 'none',
    run: async ({ stack }) => {
      await stack.nats.stop();
      const lifted = Date.now();
      await stack.nats.start();
      return lifted;
    },
  },
  {
    id: 'memory-slow',
    title: 'memory answers after the deadline (SIGSTOP, then SIGCONT)',
    connectionErrors: 'none',
    run: async ({ stack }) => {
      const memory = stack.processes.memory;
      memory.signal('SIGSTOP');
      await sleep(stack.options.requestTimeoutMs + 1_500);
      const lifted = Date.now();
      memory.signal('SIGCONT');
      return lifted;
    },
  },
  {
    id: 'jetstream-full',
    title: `JetStream store full ${STORE_FULL_MS / 1000} s (filler stream up to max_file_store), then freed`,
    connectionErrors: 'none',
    run: async ({ stack, note }) => {
      const bytes = await stack.nats.fill();
      const refusal = await stack.nats.refusal();
      await sleep(STORE_FULL_MS);
      const backlog = await outboxBacklog(stack.memoryDbUrl);
      note(
        `filled with ${Math.round(bytes / 2 ** 20)} MiB; publishes then ${refusal ? `refused ("${refusal}")` : 'NOT refused'}; memory's outbox held ${backlog} usage rows at the end`,
      );
      const lifted = Date.now();
      await stack.nats.free();
      return lifted;
    },
  },
  ...CLUSTER_FAULTS,
  ...FAILOVER_FAULTS,
];

export const faultById = (id: string): Fault => {
  const fault = FAULTS.find((f) => f.id === id);
  if (!fault) throw new Error(`no fault ${id}; known: ${FAULTS.map((f) => f.id).join(', ')}`);
  return fault;
};
