import { Streams } from '@tm/contracts';
import { type FaultStackOptions, STREAM_MB } from './fault-stack.js';
import type { RowSettings } from './run-row.js';

/**
 * The stack both runs use: a 2 s gateway deadline (shorter than the 5 s default, so a slow memory row
 * lasts seconds, not tens), a breaker that probes again after 500 ms, and a JetStream store of every
 * stream's reservation plus 16 MiB.
 */
export const STACK: FaultStackOptions = {
  requestTimeoutMs: 2_000,
  breakerResetMs: 500,
  // A "disk" JetStream can fill in seconds (the jetstream-full row); a full run stores a few MiB. Each
  // stream reserves its 16 MiB on creation: when the streams reserved all of a 64 MiB store (once
  // MEMORY_EVENTS came), nats-server refused the row's filler stream ("insufficient storage
  // resources available"), and a stream created after that would have been refused too. So the store
  // is sized from the streams there are, with 16 MiB for the filler.
  maxFileStore: (Object.keys(Streams).length + 1) * STREAM_MB * 1024 * 1024,
};

/** The same stack on a three-node NATS cluster, for the rows that lose a node (cluster-faults.ts). */
export const CLUSTER_STACK: FaultStackOptions = { ...STACK, natsNodes: 3 };

/** The same stack on PostgreSQL under Patroni, for the rows that lose the primary (failover-faults.ts). */
export const FAILOVER_STACK: FaultStackOptions = { ...STACK, postgres: 'patroni' };

/** `npm run faults`: every row, a load of 6 clients. */
export const FULL: RowSettings = {
  concurrency: 6,
  recallEvery: 4,
  thinkMs: 20,
  warmupAcks: 30,
  afterHealthyMs: 2_000,
  healthyWithinMs: 60_000,
  latencyMarginMs: 1_500,
  settleMs: 30_000,
  // Past the lease of a delivery a killed webhooks instance was sending (twice the 2 s attempt bound + 30 s).
  webhooksSettleMs: 60_000,
};

/** The CI subset (tests/e2e/faults/faults.test.ts): the same rows' rules with a smaller load. */
export const CI: RowSettings = {
  ...FULL,
  concurrency: 3,
  warmupAcks: 10,
  afterHealthyMs: 500,
  // In `npm test` two other files share the two cores: a wider margin keeps the rule "answered by
  // the deadline, not held" without turning a busy machine into a red run (no speed is asserted).
  latencyMarginMs: 5_000,
  settleMs: 20_000,
};
