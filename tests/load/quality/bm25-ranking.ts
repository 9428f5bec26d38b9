import { analyseText } from './bm25-terms.js';

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

export interface Bm25Document {
  id: string;
  text: string;
}

/**
 * Textbook Okapi BM25 over one conversation's turns, in process: the baseline the service's ranking
 * is read against. IDF is ln(1 + (N − df + 0.5) / (df + 0.5)), never negative; each query term counts
 * as often as the query holds it. Ties go to the later document, as the service's newest-first does.
 */
export class Bm25Ranking {
  private readonly documents: Array<{ id: string; termCounts: Map<string, number>; length: number }>;
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLength: number;

  constructor(
    documents: readonly Bm25Document[],
    private readonly analyse: (text: string) => string[] = analyseText,
  ) {
    this.documents = documents.map(({ id, text }) => {
      const terms = analyse(text);
      const termCounts = new Map<string, number>();
      for (const term of terms) termCounts.set(term, (termCounts.get(term) ?? 0) + 1);
      for (const term of termCounts.keys())
        this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      return { id, termCounts, length: terms.length };
    });
    const total = this.documents.reduce((sum, d) => sum + d.length, 0);
    this.averageLength = this.documents.length ? total / this.documents.length : 0;
  }

  idf(term: string): number {
    const df = this.documentFrequency.get(term) ?? 0;
    return Math.log(1 + (this.documents.length - df + 0.5) / (df + 0.5));
  }

  /** Each document's score against `query`, in document order. */
  scores(query: string): number[] {
    const terms = this.analyse(query).filter((t) => this.documentFrequency.has(t));
    return this.documents.map(({ termCounts, length }) => {
      const norm = BM25_K1 * (1 - BM25_B + (BM25_B * length) / (this.averageLength || 1));
      let score = 0;
      for (const term of terms) {
        const tf = termCounts.get(term) ?? 0;
        if (tf > 0) score += (this.idf(term) * tf * (BM25_K1 + 1)) / (tf + norm);
      }
      return score;
    });
  }

  /** The ids of the `k` best documents that share a term with the query, best first, later first on ties. */
  rank(query: string, k: number): string[] {
    const scores = this.scores(query);
    return scores
      .map((score, index) => ({ score, index }))
      .filter(({ score }) => score > 0)
      .sort((a, b) => b.score - a.score || b.index - a.index)
      .slice(0, k)
      .map(({ index }) => this.documents[index]?.id as string);
  }
}
