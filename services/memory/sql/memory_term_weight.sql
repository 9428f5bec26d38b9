-- A cue term's weight: its inverse document frequency in the namespace, as Okapi BM25 (and Lucene)
-- compute it, ln(1 + (N - df + 0.5) / (df + 0.5)), in millionths. Numeric arithmetic, so the same
-- inputs give the same weight on every server, and integer weights add up exactly in any order. At
-- least 1: a term every record holds still makes a match, as any shared term does.
CREATE OR REPLACE FUNCTION memory_term_weight(p_records bigint, p_df bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN greatest(1, round(1000000 * ln(1 + (greatest(p_records, p_df) - p_df + 0.5) / (p_df + 0.5))))::bigint;
