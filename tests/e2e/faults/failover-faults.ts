import { pollUntil } from '../../../infra/dev/wait-for.js';
import { firstWriteNote, seconds } from './fault-notes.js';
import type { Fault, FaultContext } from './fault-table.js';
import type { PrivatePatroniCluster } from './private-patroni-cluster.js';

/** A new primary later than this is a finding (the row fails), not a wait. */
const NEW_PRIMARY_WITHIN_MS = 60_000;
/** How long an old primary gets to rewind, catch up and stand by synchronously again. */
const REJOINED_WITHIN_MS = 90_000;

/**
 * The primary's machine lost: Patroni and PostgreSQL SIGKILLed together. Nobody acts after that:
 * the standby's Patroni takes the leader key once the old lease ends, promotes, and HAProxy's check
 * sends new connections to it. Resolves with the name lost, or undefined when there was no primary.
 */
async function killPrimary(ctx: FaultContext, cluster: PrivatePatroniCluster): Promise<string | undefined> {
  const former = await cluster.primary();
  if (!former) {
    ctx.fail('no PostgreSQL primary to go after');
    return undefined;
  }
  const killedAt = Date.now();
  await cluster.node(former).kill();
  const next = await cluster.newPrimary(former, NEW_PRIMARY_WITHIN_MS);
  if (!next) ctx.fail(`no new primary within ${seconds(NEW_PRIMARY_WITHIN_MS)}`);
  else
    ctx.note(
      `killed ${former}; ${next.name} primary and reached through HAProxy after ${seconds(next.seenAt - killedAt)}`,
    );
  return former;
}

/**
 * The rows on PostgreSQL under Patroni (FaultStack with postgres: 'patroni'): two nodes, synchronous
 * replication, HAProxy in front. The first loses the primary; the second brings it back, as a replica.
 */
export const FAILOVER_FAULTS: Fault[] = [
  {
    id: 'kill9-pg-primary',
    title: 'kill -9 the PostgreSQL primary and its Patroni (automatic failover to the synchronous standby)',
    postgres: 'patroni',
    connectionErrors: 'none',
    run: async (ctx) => {
      const cluster = ctx.stack.patroni;
      const whole = await cluster.unsettled();
      if (whole) ctx.fail(`the PostgreSQL cluster was not whole before the fault: ${whole}`);
      const since = Date.now();
      await killPrimary(ctx, cluster);
      // No one brings the machine back: time to healthy counts from the loss itself.
      return since;
    },
    // The load's writes sent during the failover are still in their SDK's backoff when health is back.
    afterHealthy: async (ctx, since) => {
      await pollUntil(async () => ctx.firstWriteAnswered(since) !== undefined, {
        timeoutMs: 15_000,
        intervalMs: 100,
      });
      ctx.note(firstWriteNote(ctx, since));
    },
  },
  {
    id: 'pg-old-primary-rejoins',
    title: 'the lost PostgreSQL primary started again: rewound, it rejoins as the synchronous standby',
    postgres: 'patroni',
    connectionErrors: 'none',
    run: async (ctx) => {
      const cluster = ctx.stack.patroni;
      let down = cluster.names.find((name) => !cluster.node(name).running);
      if (!down) {
        // Run alone (`--only`): lose the primary first, as the row before would have.
        down = await killPrimary(ctx, cluster);
        if (!down) return Date.now();
      }
      const startedAt = Date.now();
      cluster.node(down).start();
      const missing = await cluster.settled(REJOINED_WITHIN_MS);
      if (missing)
        ctx.fail(`${down} not standing by ${seconds(REJOINED_WITHIN_MS)} after its start: ${missing}`);
      else {
        const member = (await cluster.cluster()).find((m) => m.name === down);
        ctx.note(
          `${down} started again; synchronous standby on timeline ${member?.timeline ?? '?'} after ${seconds(Date.now() - startedAt)}`,
        );
      }
      // The stack never stopped serving: time to healthy counts from the cluster whole again.
      return Date.now();
    },
  },
];
