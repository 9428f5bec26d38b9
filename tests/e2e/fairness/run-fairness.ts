/**
 * `npm run fairness`: start a private stack (the fault suite's), run every row of pressure-table.ts in
 * turn (B's load quiet, then under A's pressure), print the table and write its section of
 * docs/reliability.md. `--only login-flood,largest-batch` runs some rows (printed, docs untouched
 * unless `--out` names a file); `--list` names the rows. Exits 1 when a row fails.
 */
import { runTableSuite } from '../support/table-suite.js';
import { FAIRNESS_HEADER, fairnessRow, writeFairnessSection } from './fairness-report.js';
import { FAIRNESS_STACK, FULL } from './fairness-settings.js';
import { PRESSURES, pressureById } from './pressure-table.js';
import { runFairnessRow, warmUp } from './run-fairness-row.js';

await runTableSuite({
  name: 'fairness',
  rows: PRESSURES,
  rowById: pressureById,
  stack: FAIRNESS_STACK,
  settings: FULL,
  before: (stack, runTag) => warmUp(stack, FULL, runTag),
  runRow: (stack, pressure, runTag) => runFairnessRow(stack, pressure, FULL, runTag),
  header: FAIRNESS_HEADER,
  line: fairnessRow,
  write: writeFairnessSection,
});
