/** The cut-offs evidence recall is reported at; the deepest is also the recall's top_k and MRR's depth. */
export const RECALL_KS = [1, 5, 10, 25] as const;
export const DEPTH = 25;
export const HIT_K = 5;

/** Share of the evidence among the first k results (the LoCoMo paper's "recall accuracy"). */
export function recallAt(evidence: ReadonlySet<string>, ranked: readonly string[], k: number): number {
  if (evidence.size === 0) return 0;
  const found = new Set(ranked.slice(0, k).filter((id) => evidence.has(id)));
  return found.size / evidence.size;
}

/** 1 when any evidence is among the first k results. */
export function hitAt(evidence: ReadonlySet<string>, ranked: readonly string[], k: number): number {
  return ranked.slice(0, k).some((id) => evidence.has(id)) ? 1 : 0;
}

/** 1 / the rank of the first evidence within `depth` results; 0 when none is there. */
export function reciprocalRank(
  evidence: ReadonlySet<string>,
  ranked: readonly string[],
  depth = DEPTH,
): number {
  const rank = ranked.slice(0, depth).findIndex((id) => evidence.has(id));
  return rank < 0 ? 0 : 1 / (rank + 1);
}

/** One question's scores, or their mean over questions. */
export interface RecallScores {
  /** Evidence recall at each of RECALL_KS. */
  recall: Record<(typeof RECALL_KS)[number], number>;
  hit5: number;
  mrr: number;
}

export function scoreQuestion(evidence: readonly string[], ranked: readonly string[]): RecallScores {
  const wanted = new Set(evidence);
  return {
    recall: {
      1: recallAt(wanted, ranked, 1),
      5: recallAt(wanted, ranked, 5),
      10: recallAt(wanted, ranked, 10),
      25: recallAt(wanted, ranked, 25),
    },
    hit5: hitAt(wanted, ranked, HIT_K),
    mrr: reciprocalRank(wanted, ranked, DEPTH),
  };
}

export interface ScoredQuestion {
  category: number;
  scores: RecallScores;
}

/** The categories averaged together as "overall" (the LoCoMo paper's 1-5). */
export const OVERALL_CATEGORIES: readonly number[] = [1, 2, 3, 4, 5];

export interface CategoryMean {
  /** A category number, or 'overall' for OVERALL_CATEGORIES together. */
  category: number | 'overall';
  questions: number;
  mean: RecallScores;
}

/** Means over questions, per category in ascending order, then over OVERALL_CATEGORIES. */
export function meanByCategory(scored: readonly ScoredQuestion[]): CategoryMean[] {
  const categories = [...new Set(scored.map((s) => s.category))].sort((a, b) => a - b);
  return [
    ...categories.map((category) => ({
      category,
      ...meanOf(scored.filter((s) => s.category === category)),
    })),
    {
      category: 'overall' as const,
      ...meanOf(scored.filter((s) => OVERALL_CATEGORIES.includes(s.category))),
    },
  ];
}

function meanOf(scored: readonly ScoredQuestion[]): { questions: number; mean: RecallScores } {
  const n = scored.length;
  const avg = (pick: (s: RecallScores) => number) =>
    n === 0 ? 0 : scored.reduce((sum, s) => sum + pick(s.scores), 0) / n;
  return {
    questions: n,
    mean: {
      recall: {
        1: avg((s) => s.recall[1]),
        5: avg((s) => s.recall[5]),
        10: avg((s) => s.recall[10]),
        25: avg((s) => s.recall[25]),
      },
      hit5: avg((s) => s.hit5),
      mrr: avg((s) => s.mrr),
    },
  };
}
