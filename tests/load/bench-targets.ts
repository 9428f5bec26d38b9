import type { TargetRow } from './report.js';
import type { LoadResult } from './run-load.js';

/** What one bench run measured, by scenario; a size missing from `recallAt` was not run. */
export interface Measured {
  baselineRps: number;
  writeRps: number;
  connections: number;
  recallAt: Map<
    number,
    Record<'single' | 'rare' | 'common' | 'question' | 'loaded' | 'loadedQuestions', LoadResult>
  >;
  /** Telemetry reads by label ('events, first page of 100', 'metrics, last 60 min', …). */
  telemetry: Map<string, LoadResult>;
}

const count = (n: number) => n.toLocaleString('en-US');
const ms = (r: LoadResult) => `p95 ${r.p95.toFixed(1)} ms`;
const failed = (r: LoadResult) =>
  Object.entries(r.statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .reduce((sum, [, n]) => sum + n, 0) + r.errors;

/**
 * The [P10] targets and [P19]'s for natural questions (docs/benchmarks.md), each judged on this run alone; a target whose namespace size
 * the run did not reach reads n/a, not met or missed.
 */
export function benchTargets(m: Measured): TargetRow[] {
  const rows: TargetRow[] = [];
  const at = (size: number) => m.recallAt.get(size);
  const share = (rps: number) =>
    `${rps.toFixed(0)} / ${m.baselineRps.toFixed(0)} req/s = ${((rps / m.baselineRps) * 100).toFixed(0)}%`;
  const add = (
    target: string,
    r: LoadResult | undefined,
    measured: (r: LoadResult) => string,
    met: (r: LoadResult) => boolean,
  ) => rows.push({ target, measured: r ? measured(r) : 'not run', met: r ? met(r) : null });

  rows.push({
    target: 'Write throughput ≥ 50% of the baseline',
    measured: share(m.writeRps),
    met: m.writeRps / m.baselineRps >= 0.5,
  });
  add(
    `Recall, ${m.connections} conn., ${count(10_000)} records: ≥ 60% of the baseline's req/s`,
    at(10_000)?.loaded,
    (r) => share(r.rps),
    (r) => r.rps / m.baselineRps >= 0.6,
  );
  add(
    `Recall, ${m.connections} conn., ${count(100_000)} records: p95 < 50 ms`,
    at(100_000)?.loaded,
    ms,
    (r) => r.p95 < 50,
  );
  add(
    `Recall, one client, ${count(1_000_000)} records, rare-word cues: p95 < 10 ms`,
    at(1_000_000)?.rare,
    ms,
    (r) => r.p95 < 10,
  );
  add(
    `Recall, one client, ${count(1_000_000)} records, common-word cues: p95 < 100 ms`,
    at(1_000_000)?.common,
    ms,
    (r) => r.p95 < 100,
  );
  add(
    `Recall, one client, ${count(1_000_000)} records, natural questions: p95 < 50 ms`,
    at(1_000_000)?.question,
    ms,
    (r) => r.p95 < 50,
  );
  add(
    `Recall, ${m.connections} conn., ${count(1_000_000)} records: no 5xx, p95 < 500 ms`,
    at(1_000_000)?.loaded,
    (r) => `${ms(r)}, ${failed(r)} failed`,
    (r) => r.p95 < 500 && failed(r) === 0,
  );
  add(
    `Recall, ${m.connections} conn., ${count(1_000_000)} records, natural questions: no 5xx, p95 < 300 ms`,
    at(1_000_000)?.loadedQuestions,
    (r) => `${ms(r)}, ${failed(r)} failed`,
    (r) => r.p95 < 300 && failed(r) === 0,
  );
  for (const [label, r] of m.telemetry) {
    const limit = label.startsWith('events') ? 20 : 50;
    add(
      `Telemetry ${label}: p95 < ${limit} ms, no 504`,
      r,
      (x) => `${ms(x)}, ${failed(x)} failed`,
      (x) => x.p95 < limit && failed(x) === 0,
    );
  }
  return rows;
}
