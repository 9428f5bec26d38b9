import type { LoadResult } from './run-load.js';

export interface ScenarioRow {
  scenario: string;
  records: string;
  connections: number;
  result: LoadResult;
}

export interface TargetRow {
  target: string;
  measured: string;
  /** null: not measured under the target's conditions (e.g. a --quick run's smaller namespace). */
  met: boolean | null;
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : 'n/a');

/** Non-2xx answers and connection errors, with the status codes seen. */
function failures(r: LoadResult): string {
  const bad = Object.entries(r.statusCodes).filter(([code]) => !code.startsWith('2'));
  const parts = [...bad.map(([code, n]) => `${n}×${code}`)];
  if (r.errors) parts.push(`${r.errors} errors`);
  if (r.rejected) parts.push(`${r.rejected} not retained`);
  return parts.length ? parts.join(', ') : '0';
}

export function scenarioTable(rows: ScenarioRow[]): string {
  const lines = [
    '| Scenario | Records in namespace | Connections | OK requests | Failed | req/s | p50 ms | p95 ms | p99 ms |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|',
  ];
  for (const { scenario, records, connections, result: r } of rows) {
    lines.push(
      `| ${scenario} | ${records} | ${connections} | ${r.ok} | ${failures(r)} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} |`,
    );
  }
  return lines.join('\n');
}

export function targetTable(rows: TargetRow[]): string {
  return [
    '| Target | Measured | Met |',
    '|---|---|---|',
    ...rows.map(
      (t) => `| ${t.target} | ${t.measured} | ${t.met === null ? 'n/a' : t.met ? 'yes' : '**no**'} |`,
    ),
  ].join('\n');
}
