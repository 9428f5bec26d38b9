import { CATEGORY_NAMES, type LocomoCleaning } from './locomo-dataset.js';
import { type CategoryMean, OVERALL_CATEGORIES, RECALL_KS } from './recall-metrics.js';

const percent = (share: number) => (share * 100).toFixed(1);

function label(category: CategoryMean['category']): string {
  if (category === 'overall') return `**overall (${OVERALL_CATEGORIES[0]}-${OVERALL_CATEGORIES.at(-1)})**`;
  return `${category} ${CATEGORY_NAMES[category] ?? '(unknown)'}`;
}

/**
 * One row per category and ranking, the rankings of a category side by side: evidence recall@k and
 * hit@5 in percent, MRR@25 as a fraction.
 */
export function qualityTable(
  rankings: ReadonlyArray<{ name: string; means: readonly CategoryMean[] }>,
): string {
  const lines = [
    `| Category | Questions | Ranking | ${RECALL_KS.map((k) => `Recall@${k}`).join(' | ')} | Hit@5 | MRR@25 |`,
    `|---|---:|---|${RECALL_KS.map(() => '---:|').join('')}---:|---:|`,
  ];
  const categories = rankings[0]?.means.map((m) => m.category) ?? [];
  for (const category of categories) {
    rankings.forEach(({ name, means }, i) => {
      const row = means.find((m) => m.category === category);
      if (!row) return;
      const { recall, hit5, mrr } = row.mean;
      lines.push(
        `| ${i === 0 ? label(category) : ''} | ${i === 0 ? row.questions : ''} | ${name} | ` +
          `${RECALL_KS.map((k) => percent(recall[k])).join(' | ')} | ${percent(hit5)} | ${mrr.toFixed(3)} |`,
      );
    });
  }
  return lines.join('\n');
}

/** What cleaning the evidence did, in one sentence. */
export function describeCleaning(c: LocomoCleaning): string {
  return (
    `Evidence cleaning: ${c.split} evidence strings held several ids and were split, ${c.repaired} id(s) ` +
    `with a stray colon repaired ("D:11:26" → "D11:26"), ${c.unknown} id(s) naming no turn dropped; ` +
    `${c.withoutEvidence} of ${c.questions} questions dropped for having no evidence left, ` +
    `${c.questions - c.withoutEvidence} recalled.`
  );
}
