import { LIMITS } from '@tm/contracts';

/**
 * Characters of an item's text its request count already pays for. The cost of a write is one
 * posting per distinct term, about one per six characters of text, so a 32,768-character item costs
 * what some 90 ordinary notes do while the request limit counts it as one. Below this a write is
 * ordinary (the benchmarks' notes are under 200 characters) and costs nothing more: the single-write
 * path then does no second round trip to the counters, only this comparison.
 */
export const TEXT_CHARS_INCLUDED = 1_024;

/** The long-text characters (past TEXT_CHARS_INCLUDED) one item costs. */
export const textCostOf = (text: string): number => Math.max(0, text.length - TEXT_CHARS_INCLUDED);

/** A batch's cost: its items' long-text characters, added up. */
export const textCostOfAll = (texts: readonly string[]): number =>
  texts.reduce((sum, text) => sum + textCostOf(text), 0);

/**
 * The most the largest allowed batch costs (100 items of 32,768 characters: 3,174,400). A tenant's
 * text budget below it would refuse that batch forever, as a 413 the spec does not allow: config
 * refuses such a budget at start.
 */
export const LARGEST_BATCH_TEXT_COST =
  LIMITS.writeBatchMaxItems * (LIMITS.textMaxChars - TEXT_CHARS_INCLUDED);
