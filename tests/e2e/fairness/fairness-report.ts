import { FAIRNESS, writeSection } from '../support/reliability-sections.js';
import type { TableRunInfo } from '../support/table-suite.js';
import type { FairnessSettings } from './fairness-settings.js';
import type { BRun, FairnessRow } from './run-fairness-row.js';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const cell = (text: string) => text.replaceAll('|', '\\|');
const latency = (b: BRun | undefined) => (b ? `${b.p50Ms} / ${b.p95Ms} ms` : '—');
const deliveries = (b: BRun | undefined) =>
  b
    ? `${seconds(b.webhooks.p50Ms)} / ${seconds(b.webhooks.p95Ms)} / ${seconds(b.webhooks.worstMs)}${b.webhooks.missing ? ` (${b.webhooks.missing} missing)` : ''}`
    : '—';

export const FAIRNESS_HEADER = [
  "| A's pressure | Result | B quiet p50 / p95 | B under pressure p50 / p95 | p95 ratio | B's failed attempts, quiet → under pressure | B's webhooks quiet p50 / p95 / worst | B's webhooks under pressure p50 / p95 / worst | B's writes acknowledged / lost | What A did and was answered; why it failed |",
  '|---|---|---|---|---|---|---|---|---|---|',
].join('\n');

/** One line of the fairness table; a failed row says why in its last column. */
export function fairnessRow(r: FairnessRow): string {
  const { quiet: q, loaded: l } = r;
  const verdict = r.passed ? 'pass' : '**FAIL**';
  const ratio = r.p95Ratio === undefined ? '—' : `${r.p95Ratio.toFixed(2)}×`;
  const why = [...r.problems, ...r.notes].join('; ');
  return `| ${r.pressure.title} | ${verdict} | ${latency(q)} | ${latency(l)} | ${ratio} | ${cell(q?.errors ?? '—')} → ${cell(l?.errors ?? '—')} | ${deliveries(q)} | ${deliveries(l)} | ${l ? `${l.acknowledged} / ${l.lost}` : '—'} | ${cell(why)} |`;
}

export type FairnessRunInfo = TableRunInfo<FairnessSettings>;

/** The section of docs/reliability.md between the fairness markers, from one run of `npm run fairness`. */
export function fairnessSection(rows: FairnessRow[], info: FairnessRunInfo): string {
  const s = info.settings;
  const passed = rows.filter((r) => r.passed).length;
  return `Written by \`npm run fairness\` (tests/e2e/fairness/); do not edit it by hand, run it again. \`npm run faults\`
keeps this section as it is. How to run it: [operations](operations.md#fairness-suite).

Run of ${info.startedAt.toISOString()}: ${passed} of ${rows.length} rows pass, in ${seconds(info.durationMs)}
(Node ${info.node}, ${info.cpus} CPUs, load average ${info.loadAverage.map((l) => l.toFixed(1)).join(' / ')} at the end: the
machine is shared, so latencies are this machine's, not a benchmark).

The stack is the fault suite's (a private PostgreSQL and nats-server, each service its own process), with
the settings a tenant meets in production where they bear on fairness: the gateway's ${seconds(info.requestTimeoutMs)} deadline,
the rate limits per key and tenant, the webhooks service's 10 s attempt time-out. Tenant B is the fault
suite's load: ${s.concurrency} SDK clients from 127.0.0.1 writing (each write its own idempotency key) and recalling every
${s.recallEvery}th call, with a webhook endpoint for \`memory.retained\` at a loopback receiver that answers after 100 ms.
Tenant A is a tenant of its own per row whose every connection leaves from 127.0.0.2, so the gateway
counts the two under different addresses. Each row measures B's load for ${seconds(s.windowMs)} with nothing else
running (quiet), then starts A's pressure and, ${seconds(s.leadMs)} later, measures the same load for another
${seconds(s.windowMs)} under it. A row passes when, under pressure:

- **No 5xx and nothing refused for B**: no attempt answered 5xx or left without an answer, no 4xx surfaced
  to B's application, and B's writes all acknowledged (re-sent with the same key where the SDK gave up)
  and stored. In the login row B's owner also logs in once a second, and must get in every time.
- **Latency**: B's p95 (every attempt, writes and recalls, measured by the client) within
  ${s.maxP95Ratio}× its quiet p95.
- **Webhooks**: every write's \`memory.retained\` arrives at B's receiver (within ${seconds(s.webhooksSettleMs)} of the load's end),
  and the 95th percentile of the delivery times, from the write's acknowledgement to the request's arrival,
  is within ${seconds(s.deliveryBoundMs)}.

The quiet window is the yardstick and is only reported (what went wrong in it is noted). A's own answers are
in the last column: what A is refused is the point of most rows, not a failure.

${FAIRNESS_HEADER}
${rows.map(fairnessRow).join('\n')}
`;
}

export function writeFairnessSection(file: string, rows: FairnessRow[], info: FairnessRunInfo): void {
  writeSection(file, FAIRNESS, fairnessSection(rows, info));
}
