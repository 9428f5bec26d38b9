import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultStack, type FaultStackOptions } from './fault-stack.js';
import { faultById } from './fault-table.js';
import { type RowResult, runRow } from './run-row.js';
import { CI, CLUSTER_STACK, FAILOVER_STACK, STACK } from './suite-settings.js';

/**
 * The CI subset of `npm run faults` (tests/e2e/faults/): the same fault definitions, row runner and
 * rules, with a smaller load, on a stack of its own (a private PostgreSQL and nats-server, each
 * service its own process), chosen to cover a crash, a graceful stop, the bus and the database, and
 * the webhooks service killed with deliveries in flight (at least once across a crash). Then, on a
 * stack whose NATS is a three-node cluster, the node leading the usage stream killed; and on a stack
 * whose PostgreSQL runs under Patroni, the primary killed (automatic failover).
 */
const CI_ROWS = ['kill9-memory', 'sigterm-gateway', 'nats-restart', 'pg-restart', 'kill9-webhooks'] as const;
const CI_CLUSTER_ROWS = ['kill9-nats-leader'] as const;
const CI_FAILOVER_ROWS = ['kill9-pg-primary'] as const;

const runTag = `ci${Date.now().toString(36)}`;

/** The row's failures, with its figures beside them so a red run says what it saw. */
const verdict = (row: RowResult) => ({
  problems: row.problems,
  lost: row.totals.lost,
  duplicated: row.totals.duplicated,
  doubleCharged: row.totals.doubleCharged,
  exact: row.totals.exact,
  webhooksLost: row.webhooks.lost,
});

/** Each stack only for its own rows: two at once would not fit the machine's two cores. */
function rowsOn(name: string, options: FaultStackOptions, ids: readonly string[]) {
  describe(name, () => {
    let stack: FaultStack;
    beforeAll(async () => {
      stack = await FaultStack.start(options);
    }, 180_000);
    afterAll(() => stack?.stop());

    for (const id of ids) {
      const fault = faultById(id);
      it(`when ${fault.title}, then every acknowledged write is stored, billed and charged exactly once and its webhook delivered, every failure was retryable and on time, and the stack is healthy again`, async () => {
        const row = await runRow(stack, fault, CI, runTag);

        expect(verdict(row)).toEqual({
          problems: [],
          lost: 0,
          duplicated: 0,
          doubleCharged: 0,
          exact: true,
          webhooksLost: 0,
        });
        expect(row.totals.acknowledged).toBeGreaterThanOrEqual(CI.warmupAcks);
        expect(row.timeToHealthyMs).toBeDefined();
        // Killed with the row's deliveries sent and unanswered (fault-table.ts waits for one): they came again.
        if (id === 'kill9-webhooks') expect(row.webhooks.sentAgain).toBeGreaterThan(0);
      }, 180_000);
    }
  });
}

rowsOn('faults under an SDK write and recall load', STACK, CI_ROWS);
rowsOn(
  'faults on a three-node NATS cluster under an SDK write and recall load',
  CLUSTER_STACK,
  CI_CLUSTER_ROWS,
);
rowsOn(
  'faults on PostgreSQL under Patroni under an SDK write and recall load',
  FAILOVER_STACK,
  CI_FAILOVER_ROWS,
);
