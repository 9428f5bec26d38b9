/**
 * The command-line shape `npm run faults` and `npm run fairness` share: parse `--only`, `--out`,
 * `--list` and `--keep`, start a private stack, run the chosen rows in turn, print the table, write it
 * into docs/reliability.md (a full run, or `--out`), and exit 1 when a row fails.
 */
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FaultStack, type FaultStackOptions } from '../faults/fault-stack.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** What a table's report prints under its heading: when, how long, on what. */
export interface TableRunInfo<Settings> {
  startedAt: Date;
  durationMs: number;
  requestTimeoutMs: number;
  settings: Settings;
  node: string;
  cpus: number;
  loadAverage: number[];
}

/** What every row's result says of itself. */
export interface RowOutcome {
  passed: boolean;
  problems: string[];
  rowMs: number;
}

export interface TableSuite<Row extends { id: string; title: string }, Result extends RowOutcome, Settings> {
  /** Prefix of progress lines: `faults`, `fairness`. */
  name: string;
  rows: readonly Row[];
  rowById: (id: string) => Row;
  stack: FaultStackOptions;
  /** The stack a row needs, when not `stack` (the same object for rows that share one). */
  stackFor?: (row: Row) => FaultStackOptions;
  settings: Settings;
  /** Before the first row (a warm-up), once the stack is up. */
  before?: (stack: FaultStack, runTag: string) => Promise<void>;
  runRow: (stack: FaultStack, row: Row, runTag: string) => Promise<Result>;
  header: string;
  line: (result: Result) => string;
  write: (file: string, results: Result[], info: TableRunInfo<Settings>) => void;
}

export async function runTableSuite<
  Row extends { id: string; title: string },
  Result extends RowOutcome,
  Settings,
>(suite: TableSuite<Row, Result, Settings>): Promise<never> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      out: { type: 'string' },
      list: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
    },
  });
  if (values.list) {
    for (const row of suite.rows) console.log(`${row.id.padEnd(20)} ${row.title}`);
    process.exit(0);
  }
  const chosen = values.only ? values.only.split(',').map((id) => suite.rowById(id.trim())) : suite.rows;
  const out = values.out ?? (values.only ? undefined : join(root, 'docs', 'reliability.md'));
  const say = (line: string) => console.error(`${suite.name} › ${line}`);

  const startedAt = new Date();
  // One stack per run of consecutive rows that need the same one (the cluster rows come last).
  const groups: { options: FaultStackOptions; rows: Row[] }[] = [];
  for (const row of chosen) {
    const options = suite.stackFor?.(row) ?? suite.stack;
    const last = groups.at(-1);
    if (last?.options === options) last.rows.push(row);
    else groups.push({ options, rows: [row] });
  }
  const results: Result[] = [];
  const runTag = startedAt.getTime().toString(36);
  for (const group of groups) {
    const stack = await FaultStack.start({ ...group.options, progress: (step) => say(`up: ${step}`) });
    try {
      await suite.before?.(stack, runTag);
      for (const row of group.rows) {
        say(`${row.id}: ${row.title}...`);
        const result = await suite.runRow(stack, row, runTag);
        results.push(result);
        const { passed, problems, rowMs } = result;
        say(
          `${row.id}: ${passed ? 'pass' : `FAIL: ${problems.join('; ')}`} (${(rowMs / 1000).toFixed(0)} s)`,
        );
      }
    } finally {
      await stack.stop({ keepDir: values.keep });
      if (values.keep) say(`logs kept in ${stack.dir}`);
    }
  }
  const durationMs = Date.now() - startedAt.getTime();
  console.log(suite.header);
  for (const result of results) console.log(suite.line(result));
  if (out) {
    suite.write(out, results, {
      startedAt,
      durationMs,
      requestTimeoutMs: suite.stack.requestTimeoutMs,
      settings: suite.settings,
      node: process.versions.node,
      cpus: cpus().length,
      loadAverage: loadavg(),
    });
    say(`wrote ${out}`);
  }
  const passed = results.filter((r) => r.passed).length;
  say(`${passed} of ${results.length} rows pass, in ${(durationMs / 1000).toFixed(0)} s`);
  process.exit(passed === results.length ? 0 : 1);
}
