import { STOPWORDS } from '../../services/memory/src/domain/cue-terms.js';
import { type Random, randomInt, seededRandom } from './random.js';
import { buildVocabulary } from './vocabulary.js';

export interface CorpusOptions {
  /** Distinct words; a few thousand, like a person's notes. */
  vocabularySize: number;
  /** Zipf exponent: the word of rank r is drawn with weight 1 / r^s (natural language: about 1). */
  zipfExponent: number;
  seed: number;
}

export const DEFAULT_CORPUS: CorpusOptions = { vocabularySize: 4_000, zipfExponent: 1.0, seed: 20261122 };

/**
 * Generates memory texts and recall cues from one vocabulary with a Zipf-like word distribution, so
 * a cue shares terms with a realistic share of the stored records: its frequent words match many,
 * its rare words few.
 */
export class TextCorpus {
  readonly words: string[];
  private readonly cumulative: Float64Array;
  private readonly random: Random;

  constructor(options: Partial<CorpusOptions> = {}) {
    const { vocabularySize, zipfExponent, seed } = { ...DEFAULT_CORPUS, ...options };
    this.words = buildVocabulary(vocabularySize);
    this.cumulative = new Float64Array(this.words.length);
    let total = 0;
    for (let rank = 1; rank <= this.words.length; rank++) {
      total += 1 / rank ** zipfExponent;
      this.cumulative[rank - 1] = total;
    }
    for (let i = 0; i < this.cumulative.length; i++) this.cumulative[i] = (this.cumulative[i] ?? 0) / total;
    this.random = seededRandom(seed);
  }

  /** One word, by inverse transform sampling over the cumulative Zipf weights. */
  word(): string {
    const u = this.random();
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.cumulative[mid] ?? 1) < u) lo = mid + 1;
      else hi = mid;
    }
    return this.words[lo] ?? 'the';
  }

  /** A note of 8 to 32 words, split into one or two sentences. */
  text(): string {
    const length = randomInt(this.random, 8, 32);
    const words = Array.from({ length }, () => this.word());
    const cut = length > 16 ? randomInt(this.random, 6, length - 6) : -1;
    const sentence = (part: string[]) => {
      const s = part.join(' ');
      return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
    };
    return cut < 0 ? sentence(words) : `${sentence(words.slice(0, cut))} ${sentence(words.slice(cut))}`;
  }

  /** A cue of 3 to 6 distinct words from the same distribution. */
  cue(): string {
    const length = randomInt(this.random, 3, 6);
    const words = new Set<string>();
    while (words.size < length) words.add(this.word());
    return [...words].join(' ');
  }

  /**
   * A cue of 3 distinct words from the rarer half of the vocabulary (ranks 2,001-4,000 of 4,000): each
   * is in about 0.05-0.1 % of the records, some hundreds of postings at 1M.
   */
  rareCue(): string {
    const from = Math.floor(this.words.length / 2);
    return this.pick(3, () => this.words[randomInt(this.random, from, this.words.length - 1)] ?? 'the');
  }

  /**
   * A cue of 3 distinct words from the 30 most frequent content words ("people time work"): each is
   * in about 2-5 % of the records, tens of thousands of postings at 1M.
   */
  commonCue(): string {
    const common = this.words.filter((w) => !STOPWORDS.has(w)).slice(0, 30);
    return this.pick(3, () => common[randomInt(this.random, 0, common.length - 1)] ?? 'time');
  }

  private pick(count: number, draw: () => string): string {
    const words = new Set<string>();
    while (words.size < count) words.add(draw());
    return [...words].join(' ');
  }

  /** A timestamp within the year before 2026-11-22, so ranking ties break on varied times. */
  occurredAt(): string {
    const end = Date.UTC(2026, 10, 22, 9);
    return new Date(end - Math.floor(this.random() * 365 * 24 * 3600) * 1000).toISOString();
  }
}

/** Lower-cased word runs, the same split the memory service's tokenizer makes for this ASCII corpus. */
const termsOf = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean),
  );

export interface HitShare {
  median: number;
  p90: number;
  /** Share of cues whose terms all miss every record. */
  noHit: number;
}

/**
 * How much of a namespace a typical cue touches: for `cues` fresh cues, the share of `sample`
 * fresh texts that contain at least one cue term (recall scores every such record).
 */
export function estimateHitShare(options: Partial<CorpusOptions>, sample = 4_000, cues = 400): HitShare {
  const corpus = new TextCorpus({ ...options, seed: (options.seed ?? DEFAULT_CORPUS.seed) + 1 });
  const texts = Array.from({ length: sample }, () => termsOf(corpus.text()));
  const shares = Array.from({ length: cues }, () => {
    const cueTerms = [...termsOf(corpus.cue())];
    return texts.filter((t) => cueTerms.some((term) => t.has(term))).length / sample;
  }).sort((a, b) => a - b);
  const at = (q: number) => shares[Math.min(shares.length - 1, Math.floor(q * shares.length))] ?? 0;
  return { median: at(0.5), p90: at(0.9), noHit: shares.filter((s) => s === 0).length / cues };
}
