import { tokenize } from './tokenize.js';

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

/**
 * The terms recall scores on: the cue's distinct terms without function words, unless the cue is made
 * only of function words ("to be or not to be"), in which case all of its terms count.
 */
export function cueTerms(cue: string): string[] {
  const terms = tokenize(cue);
  const content = terms.filter((t) => !STOPWORDS.has(t));
  return content.length > 0 ? content : terms;
}
