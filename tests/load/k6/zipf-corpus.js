// The bench's texts and cues, in plain JavaScript so that k6 runs the same code (see vocabulary.js):
// text-corpus.ts wraps it with a seeded PRNG, corpus.js with k6's Math.random.
import { randomInt } from './random.js';
import { buildVocabulary } from './vocabulary.js';

/**
 * @typedef {object} CorpusOptions
 * @property {number} vocabularySize Distinct words; a few thousand, like a person's notes.
 * @property {number} zipfExponent The word of rank r is drawn with weight 1 / r^s (natural language: about 1).
 * @property {number} seed
 */

/** @type {CorpusOptions} */
export const DEFAULT_CORPUS = { vocabularySize: 4000, zipfExponent: 1.0, seed: 20261122 };

/**
 * Memory texts and recall cues from one vocabulary with a Zipf-like word distribution, so a cue shares
 * terms with a realistic share of the stored records: its frequent words match many, its rare words few.
 * @param {Pick<CorpusOptions, 'vocabularySize' | 'zipfExponent'>} options
 * @param {import('./random.js').Random} random
 */
export function zipfCorpus({ vocabularySize, zipfExponent }, random) {
  const words = buildVocabulary(vocabularySize);
  const cumulative = new Float64Array(words.length);
  let total = 0;
  for (let rank = 1; rank <= words.length; rank++) {
    total += 1 / rank ** zipfExponent;
    cumulative[rank - 1] = total;
  }
  for (let i = 0; i < cumulative.length; i++) cumulative[i] = (cumulative[i] ?? 0) / total;

  /** One word, by inverse transform sampling over the cumulative Zipf weights. */
  const word = () => {
    const u = random();
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cumulative[mid] ?? 1) < u) lo = mid + 1;
      else hi = mid;
    }
    return words[lo] ?? 'the';
  };

  /** @param {string[]} part */
  const sentence = (part) => {
    const s = part.join(' ');
    return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
  };

  return {
    words,
    word,
    /** A note of 8 to 32 words, split into one or two sentences. */
    text() {
      const length = randomInt(random, 8, 32);
      const drawn = Array.from({ length }, word);
      const cut = length > 16 ? randomInt(random, 6, length - 6) : -1;
      return cut < 0 ? sentence(drawn) : `${sentence(drawn.slice(0, cut))} ${sentence(drawn.slice(cut))}`;
    },
    /** A cue of 3 to 6 distinct words from the same distribution. */
    cue() {
      const length = randomInt(random, 3, 6);
      const drawn = new Set();
      while (drawn.size < length) drawn.add(word());
      return [...drawn].join(' ');
    },
    /** A timestamp within the year before 2026-11-22, so ranking ties break on varied times. */
    occurredAt() {
      const end = Date.UTC(2026, 10, 22, 9);
      return new Date(end - Math.floor(random() * 365 * 24 * 3600) * 1000).toISOString();
    },
  };
}
