import type { TargetRow } from '../report.js';
import type { RecallScores } from './recall-metrics.js';

/** What the recall ranking must reach over categories 1-5 of the LoCoMo dev split. */
export const QUALITY_TARGETS = { recallAt5: 0.6, mrr: 0.52 };

export function qualityTargets(overall: RecallScores): TargetRow[] {
  return [
    {
      target: `Evidence recall@5 ≥ ${(QUALITY_TARGETS.recallAt5 * 100).toFixed(0)} % (categories 1-5)`,
      measured: `${(overall.recall[5] * 100).toFixed(1)} %`,
      met: overall.recall[5] >= QUALITY_TARGETS.recallAt5,
    },
    {
      target: `MRR@25 ≥ ${QUALITY_TARGETS.mrr.toFixed(2)} (categories 1-5)`,
      measured: overall.mrr.toFixed(3),
      met: overall.mrr >= QUALITY_TARGETS.mrr,
    },
  ];
}
