/**
 * `npm run faults`: start a private stack, run every fault row of fault-table.ts in turn against an
 * SDK load, print the table and write docs/reliability.md. `--only kill9-memory,nats-restart` runs
 * some rows (printed, docs untouched unless `--out` names a file); `--list` names the rows. The rows on
 * a three-node NATS cluster, then those on PostgreSQL under Patroni, run last, each on a stack of their own.
 * Exits 1 when a row fails.
 */
import { runTableSuite } from '../support/table-suite.js';
import { FAULTS, faultById } from './fault-table.js';
import { TABLE_HEADER, tableRow, writeReliabilityPage } from './report.js';
import { runRow } from './run-row.js';
import { CLUSTER_STACK, FAILOVER_STACK, FULL, STACK } from './suite-settings.js';

await runTableSuite({
  name: 'faults',
  rows: FAULTS,
  rowById: faultById,
  stack: STACK,
  stackFor: (fault) =>
    fault.nats === 'cluster' ? CLUSTER_STACK : fault.postgres === 'patroni' ? FAILOVER_STACK : STACK,
  settings: FULL,
  runRow: (stack, fault, runTag) => runRow(stack, fault, FULL, runTag),
  header: TABLE_HEADER,
  line: tableRow,
  write: writeReliabilityPage,
});
