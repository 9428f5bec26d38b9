import type { TopLevelSpec } from 'vega-lite';
import { vegaLiteSvg } from './vega-lite-svg.js';

export interface RecallPoint {
  records: number;
  /** The scenario's name in the bench table, e.g. 'Recall, one client, rare-word cues'. */
  scenario: string;
  p50: number;
  p95: number;
}

/**
 * Recall latency against namespace size, one line per scenario, p95 solid and p50 dashed, both axes
 * logarithmic: the curve docs/benchmarks.md shows for 10k / 100k / 1M records.
 */
export async function recallChartSvg(points: RecallPoint[], title: string): Promise<string> {
  const values = points.flatMap((p) => [
    { records: p.records, scenario: p.scenario, percentile: 'p95', ms: p.p95 },
    { records: p.records, scenario: p.scenario, percentile: 'p50', ms: p.p50 },
  ]);
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 560,
    height: 320,
    data: { values },
    mark: { type: 'line', point: true },
    encoding: {
      x: {
        field: 'records',
        type: 'quantitative',
        scale: { type: 'log' },
        title: 'records in the namespace',
      },
      y: { field: 'ms', type: 'quantitative', scale: { type: 'log' }, title: 'latency, ms' },
      color: {
        field: 'scenario',
        type: 'nominal',
        legend: { orient: 'bottom', columns: 2, labelLimit: 320 },
      },
      strokeDash: { field: 'percentile', type: 'nominal', sort: ['p95', 'p50'] },
    },
  };
  return vegaLiteSvg(spec);
}
