import { STOPWORDS } from '../../services/memory/src/domain/cue-terms.js';
import { type Random, randomInt, seededRandom } from './k6/random.js';
import { type CorpusOptions, DEFAULT_CORPUS, zipfCorpus } from './k6/zipf-corpus.js';

export { type CorpusOptions, DEFAULT_CORPUS };

/**
 * The bench's corpus: k6/zipf-corpus.js's texts and cues (shared with the k6 scripts) from a seeded
 * PRNG, so every run draws the same sequence, and the bench's own rare- and common-word cues.
 */
export class TextCorpus {
  readonly words: string[];
  /** The vocabulary without function words, most frequent first: what recall scores on. */
  private readonly contentWords: string[];
  private readonly zipf: ReturnType<typeof zipfCorpus>;
  private readonly random: Random;

  constructor(options: Partial<CorpusOptions> = {}) {
    const { seed, ...shape } = { ...DEFAULT_CORPUS, ...options };
    this.random = seededRandom(seed);
    this.zipf = zipfCorpus(shape, this.random);
    this.words = this.zipf.words;
    this.contentWords = this.words.filter((w) => !STOPWORDS.has(w));
  }

  word(): string {
    return this.zipf.word();
  }

  text(): string {
    return this.zipf.text();
  }

  cue(): string {
    return this.zipf.cue();
  }

  occurredAt(): string {
    return this.zipf.occurredAt();
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
    return this.pick(3, () => this.contentWords[randomInt(this.random, 0, 29)] ?? 'time');
  }

  /**
   * A question as people ask an assistant ("when is the family dinner tomorrow evening"):
   * an opening of 1-3 function words, then 3-5 distinct content words whose ranks are log-uniform over
   * the content vocabulary, so each decade of frequency is as likely as the next: about two in five
   * are among the 30 most frequent, one in six from the rarer three quarters. Several common terms
   * and seldom a record that holds them all: the shape that makes recall count long posting lists.
   */
  questionCue(): string {
    const opening = QUESTION_OPENINGS[randomInt(this.random, 0, QUESTION_OPENINGS.length - 1)] ?? 'what';
    const n = this.contentWords.length;
    const content = this.pick(randomInt(this.random, 3, 5), () => {
      const rank = Math.floor(Math.exp(this.random() * Math.log(n)));
      return this.contentWords[Math.min(rank, n) - 1] ?? 'time';
    });
    return `${opening} ${content}`;
  }

  private pick(count: number, draw: () => string): string {
    const words = new Set<string>();
    while (words.size < count) words.add(draw());
    return [...words].join(' ');
  }
}

/** How questions open: function words only, which recall leaves out of the terms it scores. */
const QUESTION_OPENINGS = [
  'what',
  'what is the',
  'when is the',
  'where is my',
  'how did the',
  'who was at',
  'which of our',
  'why did we',
];

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
