/**
 * `npm run fairness`: start a private stack (the fault suite's), run every row of pressure-table.ts in
 * turn (B's load quiet, then under A's pressure), print the table and write its section of
 * docs/reliability.md. `--only login-flood,largest-batch` runs some rows (printed, docs untouched
 * unless `--out` names a file); `--list` names the rows. Exits 1 when a row fails.
 */
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FaultStack } from '../faults/fault-stack.js';
import { FAIRNESS_HEADER, fairnessRow, writeFairnessSection } from './fairness-report.js';
import { FAIRNESS_STACK, FULL } from './fairness-settings.js';
import { PRESSURES, pressureById } from './pressure-table.js';
import { type FairnessRow, runFairnessRow, warmUp } from './run-fairness-row.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    out: { type: 'string' },
    list: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
if (values.list) {
  for (const p of PRESSURES) console.log(`${p.id.padEnd(20)} ${p.title}`);
  process.exit(0);
}
const pressures = values.only ? values.only.split(',').map((id) => pressureById(id.trim())) : PRESSURES;
const out = values.out ?? (values.only ? undefined : join(root, 'docs', 'reliability.md'));
const say = (line: string) => console.error(`fairness › ${line}`);

const startedAt = new Date();
const stack = await FaultStack.start({ ...FAIRNESS_STACK, progress: (step) => say(`up: ${step}`) });
const rows: FairnessRow[] = [];
const runTag = startedAt.getTime().toString(36);
try {
  await warmUp(stack, FULL, runTag);
  for (const pressure of pressures) {
    say(`${pressure.id}: ${pressure.title}...`);
    const row = await runFairnessRow(stack, pressure, FULL, runTag);
    rows.push(row);
    const took = `${(row.rowMs / 1000).toFixed(0)} s`;
    say(`${pressure.id}: ${row.passed ? 'pass' : `FAIL: ${row.problems.join('; ')}`} (${took})`);
  }
} finally {
  await stack.stop({ keepDir: values.keep });
  if (values.keep) say(`logs kept in ${stack.dir}`);
}
const durationMs = Date.now() - startedAt.getTime();
console.log(FAIRNESS_HEADER);
for (const row of rows) console.log(fairnessRow(row));
if (out) {
  writeFairnessSection(out, rows, {
    startedAt,
    durationMs,
    requestTimeoutMs: FAIRNESS_STACK.requestTimeoutMs,
    settings: FULL,
    node: process.versions.node,
    cpus: cpus().length,
    loadAverage: loadavg(),
  });
  say(`wrote ${out}`);
}
say(
  `${rows.filter((r) => r.passed).length} of ${rows.length} rows pass, in ${(durationMs / 1000).toFixed(0)} s`,
);
process.exit(rows.every((r) => r.passed) ? 0 : 1);
