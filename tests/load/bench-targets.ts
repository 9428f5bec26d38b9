import type { TargetRow } from './report.js';
import type { LoadResult } from './run-load.js';

/** What one bench run measured, by scenario; a size missing from `recallAt` was not run. */
export interface Measured {
  /** The bare Express + pg server doing one INSERT per write. */
  baselineRps: number;
  /** The same-work server running the memory service's own write statement. */
  sameWorkWriteRps: number;
  writeRps: number;
  connections: number;
  /** By namespace size; sameWork*: the same-work server's ranking of the Zipf cues, as single and loaded. */
  recallAt: Map<
    number,
    Record<
      | 'single'
      | 'rare'
      | 'common'
      | 'question'
      | 'loaded'
      | 'loadedQuestions'
      | 'sameWorkSingle'
      | 'sameWorkLoaded',
      LoadResult
    >
  >;
  /** Telemetry reads by label ('events, first page of 100', 'metrics, last 60 min', …). */
  telemetry: Map<string, LoadResult>;
  /**
   * The batch-write comparison, when run: single `/write` calls, then `/write/batch` requests of
   * `size` events, on the same `connections`, back to back. A batch's `ok` counts batches whose every
   * item was retained as new.
   */
  batchWrite?: { connections: number; size: number; single: LoadResult; batch: LoadResult };
}

const count = (n: number) => n.toLocaleString('en-US');
const ms = (r: LoadResult) => `p95 ${r.p95.toFixed(1)} ms`;
const failed = (r: LoadResult) =>
  Object.entries(r.statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .reduce((sum, [, n]) => sum + n, 0) + r.errors;

const percent = (part: number, whole: number) => `${((part / whole) * 100).toFixed(0)}%`;

/**
 * Each scenario against its same-work baseline (the memory service's own statements in a bare server)
 * and against the INSERT baseline, which the first targets were set on: throughput under load, and the
 * one-client p50 as a difference (what our path adds to one recall).
 */
export function ratioTable(m: Measured): string {
  const lines = [
    '| Scenario | Records | This stack | Same-work baseline | Share of same-work | Share of INSERT baseline |',
    '|---|---:|---:|---:|---:|---:|',
    `| Write, ${m.connections} conn. | - | ${m.writeRps.toFixed(0)} req/s | ${m.sameWorkWriteRps.toFixed(0)} req/s | ${percent(m.writeRps, m.sameWorkWriteRps)} | ${percent(m.writeRps, m.baselineRps)} |`,
  ];
  for (const [records, r] of m.recallAt) {
    lines.push(
      `| Recall, ${m.connections} conn. | ${count(records)} | ${r.loaded.rps.toFixed(0)} req/s | ${r.sameWorkLoaded.rps.toFixed(0)} req/s | ${percent(r.loaded.rps, r.sameWorkLoaded.rps)} | ${percent(r.loaded.rps, m.baselineRps)} |`,
      `| Recall, one client, p50 | ${count(records)} | ${r.single.p50.toFixed(1)} ms | ${r.sameWorkSingle.p50.toFixed(1)} ms | +${(r.single.p50 - r.sameWorkSingle.p50).toFixed(1)} ms | - |`,
    );
  }
  return lines.join('\n');
}

/** Memories retained a second: one a request for single writes, `size` a request for batches. */
export function memoriesPerSecond(r: LoadResult, perRequest = 1): number {
  return r.rps * perRequest;
}

/**
 * The batch write against single writes: memories a second each way on the same connections,
 * and their ratio (no target: the issue asks for the number). Empty when the comparison was not run.
 */
export function batchTable(m: Measured): string {
  const b = m.batchWrite;
  if (!b) return '';
  const single = memoriesPerSecond(b.single);
  const batch = memoriesPerSecond(b.batch, b.size);
  return [
    '| Write path | Connections | Requests/s | Memories/s | Against single writes |',
    '|---|---:|---:|---:|---:|',
    `| Single \`/write\`, one event a request | ${b.connections} | ${b.single.rps.toFixed(0)} | ${single.toFixed(0)} | 1.00× |`,
    `| \`/write/batch\`, ${b.size} events a request | ${b.connections} | ${b.batch.rps.toFixed(1)} | ${batch.toFixed(0)} | ${(batch / single).toFixed(2)}× |`,
  ].join('\n');
}

/**
 * The first targets, moved and joined by later ones (natural questions, the same-work baselines), each
 * judged on this run alone (docs/benchmarks.md); a target whose namespace size the run did not reach
 * reads n/a, not met or missed.
 */
export function benchTargets(m: Measured): TargetRow[] {
  const rows: TargetRow[] = [];
  const at = (size: number) => m.recallAt.get(size);
  const share = (rps: number, of = m.baselineRps) =>
    `${rps.toFixed(0)} / ${of.toFixed(0)} req/s = ${percent(rps, of)}`;
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
  rows.push({
    target: 'Write throughput ≥ 60% of the same-work baseline',
    measured: share(m.writeRps, m.sameWorkWriteRps),
    met: m.writeRps / m.sameWorkWriteRps >= 0.6,
  });
  add(
    `Recall, ${m.connections} conn., ${count(10_000)} records: ≥ 60% of the baseline's req/s`,
    at(10_000)?.loaded,
    (r) => share(r.rps),
    (r) => r.rps / m.baselineRps >= 0.6,
  );
  const small = at(10_000);
  add(
    `Recall, ${m.connections} conn., ${count(10_000)} records: ≥ 60% of the same-work baseline's req/s`,
    small?.loaded,
    (r) => share(r.rps, small?.sameWorkLoaded.rps ?? Number.NaN),
    (r) => r.rps / (small?.sameWorkLoaded.rps ?? Number.NaN) >= 0.6,
  );
  add(
    `Recall, one client, ${count(10_000)} records: p50 within 2 ms of the same-work baseline's`,
    small?.single,
    (r) => `${r.p50.toFixed(1)} ms against ${small?.sameWorkSingle.p50.toFixed(1)} ms`,
    (r) => r.p50 - (small?.sameWorkSingle.p50 ?? Number.NaN) <= 2,
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
    `Recall, one client, ${count(1_000_000)} records, common-word cues: p95 < 20 ms`,
    at(1_000_000)?.common,
    ms,
    (r) => r.p95 < 20,
  );
  add(
    `Recall, one client, ${count(1_000_000)} records, natural questions: p95 < 50 ms`,
    at(1_000_000)?.question,
    ms,
    (r) => r.p95 < 50,
  );
  add(
    `Recall, ${m.connections} conn., ${count(1_000_000)} records: no 5xx, p95 < 300 ms`,
    at(1_000_000)?.loaded,
    (r) => `${ms(r)}, ${failed(r)} failed`,
    (r) => r.p95 < 300 && failed(r) === 0,
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
