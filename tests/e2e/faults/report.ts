import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { BAD_INPUT, FAIRNESS, keptSection } from '../support/reliability-sections.js';
import type { TableRunInfo } from '../support/table-suite.js';
import type { RowResult, RowSettings } from './run-row.js';

const seconds = (ms: number | undefined) => (ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`);

/** One line of the fault table; a failed row says why in its last column. */
export function tableRow(r: RowResult): string {
  const t = r.totals;
  const verdict = r.passed ? 'pass' : '**FAIL**';
  const why = [...r.problems, ...r.notes].join('; ').replaceAll('|', '\\|');
  const w = r.webhooks;
  return `| ${r.fault.title} | ${verdict} | ${r.inFlightAtFault} | ${t.acknowledged} | ${t.lost} | ${t.duplicated} | ${t.doubleCharged} | ${w.delivered} / ${w.lost} / ${w.sentAgain} | ${r.worstLatencyMs} ms | ${r.healthDuringFault.join(' → ')} | ${seconds(r.timeToHealthyMs)} | ${r.resent} | ${r.failedAttempts.replaceAll('|', '\\|')} | ${why} |`;
}

export const TABLE_HEADER = [
  '| Fault | Result | In flight at the fault | Acknowledged | Lost | Duplicated | Double-charged | Webhooks delivered / lost / sent again | Worst latency | Health during the fault | Time to healthy | Re-sent after the SDK gave up | Failed attempts the client saw | Why it failed / notes |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
].join('\n');

export type RunInfo = TableRunInfo<RowSettings>;

/**
 * docs/reliability.md from one run of `npm run faults`. The bad-input section belongs to the fuzzing
 * effort and the fairness section to `npm run fairness`: whatever they hold between their markers is kept.
 */
export function writeReliabilityPage(file: string, rows: RowResult[], info: RunInfo): void {
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const s = info.settings;
  const passed = rows.filter((r) => r.passed).length;
  const page = `# Reliability

Written by \`npm run faults\` (tests/e2e/faults/); do not edit the fault table by hand, run it again.
How the suite works and how long it takes: [operations](operations.md#fault-suite).

## Per fault

Run of ${info.startedAt.toISOString()}: ${passed} of ${rows.length} rows pass, in ${seconds(info.durationMs)}
(Node ${info.node}, ${info.cpus} CPUs, load average ${info.loadAverage.map((l) => l.toFixed(1)).join(' / ')} at the end: the
machine is shared, so latencies are this machine's, not a benchmark).

Each row is its own load on a fresh namespace: ${s.concurrency} SDK clients writing (each write with its own
idempotency key) and recalling (every ${s.recallEvery}th call), the SDK's own retry policy, the fault
injected once ${s.warmupAcks} writes are acknowledged, then lifted (the suite restarts what it stopped, as a
supervisor would). A row passes when:

- **Exact totals**: acknowledged writes = records in the memory database = usage records in billing =
  charges, with nothing lost, duplicated or charged twice (billing gets ${seconds(s.settleMs)} to catch up). Writes the
  SDK gave up on are sent again with the same key until answered, as the spec tells an application to
  (they count as acknowledged once answered; the column says how many needed it).
- **No webhook lost**: the tenant has an endpoint for \`memory.retained\` at the suite's own receiver,
  which checks every request with the \`standardwebhooks\` library; every acknowledged write's event
  arrived there at least once (the webhooks service gets ${seconds(s.webhooksSettleMs)}: a delivery a killed instance
  was sending comes back when its lease ends, 34 s here), always under one webhook-id, and no request
  failed the signature check. "Sent again" counts the requests past the first for a write (same
  webhook-id): at least once allows them, receivers deduplicate on the id. The receiver answers each
  after 100 ms, so deliveries are in flight when the service is killed; one whose connection closed
  before its answer must come again.
- **Retryable failures only**: every failed attempt the client saw is a 503/504 (or 409
  \`idempotency_in_flight\`) with \`retryable: true\` and a Retry-After header; a connection error only
  where the gateway itself is killed (kill -9: any), or refused while it is stopped (SIGTERM: a
  connection cut mid-request fails the row).
- **On time**: no attempt took longer than the gateway's deadline (\`GATEWAY_REQUEST_TIMEOUT_MS\` =
  ${info.requestTimeoutMs} ms) + ${s.latencyMarginMs} ms = ${info.requestTimeoutMs + s.latencyMarginMs} ms, measured by the client.
- **Healthy again** within ${seconds(s.healthyWithinMs)} of the fault being lifted: health answers 200 with every
  service \`available\` (the optional ones too), and a write is answered 200. The column is the measured time.

"Health during the fault" is what \`GET /api/v1/infrastructure/health\` answered while the fault was in
force (each change, in order; read every 250 ms); it is reported, not judged.

The rows that say "three-node cluster" run last, on a stack of their own whose NATS is three
\`nats-server\` nodes on loopback (one cluster, routes to each other, each its own store), every stream and
durable consumer at three copies and the services given the seed list; a row starts once every stream
and consumer has a leader and both replicas current. Their notes give the failover measured: when
another node led \`MEMORY_USAGE\` after its leader was lost, and when a write sent after the fault was
first acknowledged.

${TABLE_HEADER}
${rows.map(tableRow).join('\n')}

## Per bad-input class

${keptSection(previous, BAD_INPUT)}

## Per tenant under pressure (fairness)

${keptSection(previous, FAIRNESS)}
`;
  writeFileSync(file, page);
}
