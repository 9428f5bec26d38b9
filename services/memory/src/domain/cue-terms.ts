import { termOf } from './tokenize.js';
import { tokenizeV1 } from './tokenize-v1.js';
import { words } from './words.js';

/**
 * English function words. A cue is matched on its content words: "what does Alice drink" asks about
 * alice and drink, and a match on "what" or "does" says nothing about relevance while touching most
 * of a namespace. Retained text keeps every term, so nothing becomes unfindable.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are as at be because been before being below
  between both but by can could did do does doing down during each few for from further had has have
  having he her here hers herself him himself his how i if in into is it its itself just me more most my
  myself no nor not now of off on once only or other our ours ourselves out over own same she should so
  some such than that the their theirs them themselves then there these they this those through to too
  under until up very was we were what when where which while who whom why will with would you your
  yours yourself yourselves`.split(/\s+/),
);

/** Contractions of function words ("i'm", "don't"): as empty of content as the words they join. */
const CONTRACTIONS: ReadonlySet<string> = new Set(
  `i'm i've i'd i'll you're you've you'd you'll he's he'd he'll she's she'd she'll it's it'd it'll we're
  we've we'd we'll they're they've they'd they'll that's there's here's what's who's where's when's why's
  how's let's don't doesn't didn't isn't aren't wasn't weren't won't wouldn't can't couldn't shouldn't
  haven't hasn't hadn't mustn't`.split(/\s+/),
);

const isFunctionWord = (word: string) => STOPWORDS.has(word) || CONTRACTIONS.has(word);

/** One cue word and the index term it matches on. */
export interface CueTerm {
  word: string;
  term: string;
}

/**
 * The cue as recall weighs it: its content words' distinct terms, which the score is made of, and its
 * function words' terms, which only break ties between records of the same score. A cue made only of
 * function words ("to be or not to be") is all content. Each term once, by its first word.
 */
export interface Cue {
  content: CueTerm[];
  function: CueTerm[];
}

export function cueTerms(cue: string): Cue {
  const content = new Map<string, CueTerm>();
  const fn = new Map<string, CueTerm>();
  const all = words(cue);
  const hasContent = all.some((w) => !isFunctionWord(w));
  for (const word of all) {
    const term = termOf(word);
    if (!term) continue;
    const into = hasContent && isFunctionWord(word) ? fn : content;
    if (!into.has(term)) into.set(term, { word, term });
  }
  for (const term of content.keys()) fn.delete(term);
  return { content: [...content.values()], function: [...fn.values()] };
}

/** The cue as the old index (deterministic-lexical-v1) matched it: distinct terms without function words. */
export function legacyCueTerms(cue: string): string[] {
  const terms = tokenizeV1(cue);
  const content = terms.filter((t) => !STOPWORDS.has(t));
  return content.length > 0 ? content : terms;
}
