import type { TopLevelSpec } from 'vega-lite';
import { vegaLiteSvg } from '../vega-lite-svg.js';
import { RECALL_KS, type RecallScores } from './recall-metrics.js';

/** Evidence recall at k = 1, 5, 10, 25, one line per ranking (the service's and BM25's). */
export function recallAtKChartSvg(
  rankings: ReadonlyArray<{ name: string; mean: RecallScores }>,
  title: string,
): Promise<string> {
  const values = rankings.flatMap(({ name, mean }) =>
    RECALL_KS.map((k) => ({ k, ranking: name, recall: Math.round(mean.recall[k] * 1_000) / 10 })),
  );
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 480,
    height: 300,
    data: { values },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'k', type: 'ordinal', title: 'k (first k results)', axis: { labelAngle: 0 } },
      y: {
        field: 'recall',
        type: 'quantitative',
        scale: { domain: [0, 100] },
        title: 'evidence recall@k, % (categories 1-5)',
      },
      color: { field: 'ranking', type: 'nominal', legend: { orient: 'bottom', columns: 1, labelLimit: 400 } },
    },
  };
  return vegaLiteSvg(spec);
}
