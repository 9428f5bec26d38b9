/**
 * `npm run faults`: start a private stack, run every fault row of fault-table.ts in turn against an
 * SDK load, print the table and write docs/reliability.md. `--only kill9-memory,nats-restart` runs
 * some rows (printed, docs untouched unless `--out` names a file); `--list` names the rows.
 * Exits 1 when a row fails.
 */
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FaultStack } from './fault-stack.js';
import { FAULTS, faultById } from './fault-table.js';
import { TABLE_HEADER, tableRow, writeReliabilityPage } from './report.js';
import { type RowResult, runRow } from './run-row.js';
import { FULL, STACK } from './suite-settings.js';

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
  for (const f of FAULTS) console.log(`${f.id.padEnd(18)} ${f.title}`);
  process.exit(0);
}
const faults = values.only ? values.only.split(',').map((id) => faultById(id.trim())) : FAULTS;
const out = values.out ?? (values.only ? undefined : join(root, 'docs', 'reliability.md'));
const say = (line: string) => console.error(`faults › ${line}`);

const startedAt = new Date();
const stack = await FaultStack.start({ ...STACK, progress: (step) => say(`up: ${step}`) });
const rows: RowResult[] = [];
const runTag = startedAt.getTime().toString(36);
try {
  for (const fault of faults) {
    say(`${fault.id}: ${fault.title}...`);
    const row = await runRow(stack, fault, FULL, runTag);
    rows.push(row);
    const took = `${(row.rowMs / 1000).toFixed(0)} s`;
    say(`${fault.id}: ${row.passed ? 'pass' : `FAIL: ${row.problems.join('; ')}`} (${took})`);
  }
} finally {
  await stack.stop({ keepDir: values.keep });
  if (values.keep) say(`logs kept in ${stack.dir}`);
}
const durationMs = Date.now() - startedAt.getTime();
console.log(TABLE_HEADER);
for (const row of rows) console.log(tableRow(row));
if (out) {
  writeReliabilityPage(out, rows, {
    startedAt,
    durationMs,
    requestTimeoutMs: STACK.requestTimeoutMs,
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
