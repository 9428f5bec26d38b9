-- (No semicolons in comments: the pg adapter splits migration scripts on them.)
-- The cue's statistics in a function of their own (memory_rank_stats), computed once a recall and
-- handed to memory_rank or to the class walk in the memory service (rank-by-classes.ts).
DROP FUNCTION IF EXISTS memory_rank(bigint, text[], text[], timestamptz, uuid[], int, int, int);

-- Generated from services/memory/sql/ (node --import tsx services/memory/sql/to-migration.ts).
-- Recall's ranking (deterministic-lexical-v2): the top p_limit records of a namespace's stemmed index
-- by the summed weight of the cue terms (p_terms) each holds, then by how many of the cue's function
-- words (p_tie_terms) it holds, then newest first. Records tied with the last place on all three come
-- too: the caller breaks that tie by event id and cuts. Exact: the same records as scoring every
-- record of the namespace, computed with the pruning search engines use for weighted sums.
--
-- 1. Statistics, given (memory_rank_stats): each term's list length and weight, which follows how
--    rare the term is in this namespace.
-- 2. Short lists (fewer than p_short postings in all): every record sharing a term is scored.
-- 3. Long lists, first the full match: the heaviest (rarest) list is walked newest first over its
--    p_full_walk newest postings, each probed in the other lists by primary key. Records holding every
--    term and every function word score the most anyone can, so the newest p_limit of them are the
--    answer, and a cue of common words costs a few hundred postings, not their lists.
-- 4. Otherwise MaxScore: lists are walked whole, heaviest first, each record probed in the lighter
--    lists, until the k-th best score found beats the weight of the lists not walked, which is all
--    a record outside the walked lists can hold. Rare lists are walked, common ones only probed.
CREATE OR REPLACE FUNCTION memory_rank(p_scope bigint, p_terms text[], p_tie_terms text[], p_as_of timestamptz,
                                       p_hidden uuid[], p_limit int, p_lengths bigint[], p_weights bigint[],
                                       p_short int, p_full_walk int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, score bigint, tie int, held boolean[],
                 tie_held boolean[], weights bigint[])
  LANGUAGE plpgsql STABLE PARALLEL SAFE ROWS 10
  SET jit = off
AS E'
#variable_conflict use_column
DECLARE
  v_n int := cardinality(p_terms)\073
  v_at timestamptz := coalesce(p_as_of, ''infinity'')\073
  v_df bigint[] := p_lengths\073
  v_w bigint[] := p_weights\073
  v_terms text[]\073
  v_sw bigint[]\073
  v_suffix bigint[]\073
  v_from timestamptz\073
  v_theta bigint\073
  c_ids uuid[] := ''{}''\073
  c_ats timestamptz[] := ''{}''\073
  c_scores bigint[] := ''{}''\073
  n_ids uuid[]\073
  n_ats timestamptz[]\073
  n_scores bigint[]\073
BEGIN
  IF v_n = 0 THEN
    RETURN\073
  END IF\073

  IF (SELECT sum(x) FROM unnest(v_df) AS x) < p_short THEN
    SELECT coalesce(array_agg(h.memory_id), ''{}''), coalesce(array_agg(h.occurred_at), ''{}''),
           coalesce(array_agg(h.score), ''{}'')
      INTO c_ids, c_ats, c_scores
      FROM (SELECT t.memory_id, t.occurred_at, sum(q.w)::bigint AS score
              FROM unnest(p_terms, v_w) AS q(term, w)
             CROSS JOIN LATERAL (SELECT t.memory_id, t.occurred_at FROM memory_term t
                                  WHERE t.scope_key = p_scope AND t.term = q.term AND t.occurred_at <= v_at
                                 OFFSET 0) AS t
             WHERE t.memory_id <> ALL (p_hidden)
             GROUP BY t.memory_id, t.occurred_at
             ORDER BY score DESC
             FETCH FIRST p_limit ROWS WITH TIES) AS h\073
  ELSE
    -- Heaviest first\073 equal weights in cue order, so the walk is the same on every call.
    SELECT array_agg(u.term ORDER BY u.w DESC, u.i), array_agg(u.w ORDER BY u.w DESC, u.i)
      INTO v_terms, v_sw
      FROM unnest(p_terms, v_w) WITH ORDINALITY AS u(term, w, i)\073
    SELECT array_agg(s.rest ORDER BY s.e) || 0::bigint INTO v_suffix
      FROM (SELECT e, (SELECT sum(w) FROM unnest(v_sw[e:]) AS w)::bigint AS rest
              FROM generate_subscripts(v_sw, 1) AS e) AS s\073

    -- The full match''s walk reaches back to its p_full_walk-th newest posting, every posting at that
    -- time included, so a tie on time is never cut.
    SELECT coalesce((SELECT t.occurred_at FROM memory_term t
                      WHERE t.scope_key = p_scope AND t.term = v_terms[1] AND t.occurred_at <= v_at
                      ORDER BY t.occurred_at DESC OFFSET p_full_walk - 1 LIMIT 1), ''-infinity'')
      INTO v_from\073
    SELECT coalesce(array_agg(f.memory_id), ''{}''), coalesce(array_agg(f.occurred_at), ''{}'')
      INTO n_ids, n_ats
      FROM (SELECT t.memory_id, t.occurred_at FROM memory_term t
             WHERE t.scope_key = p_scope AND t.term = v_terms[1] AND t.occurred_at <= v_at
               AND t.occurred_at >= v_from
               AND t.memory_id <> ALL (p_hidden)
               AND NOT EXISTS (SELECT 1 FROM unnest(v_terms[2:] || p_tie_terms) AS p(term)
                                WHERE NOT EXISTS (SELECT 1 FROM memory_term o
                                                   WHERE o.scope_key = p_scope AND o.term = p.term
                                                     AND o.occurred_at = t.occurred_at
                                                     AND o.memory_id = t.memory_id
                                                  OFFSET 0))
             ORDER BY t.occurred_at DESC
             FETCH FIRST p_limit ROWS WITH TIES) AS f\073

    IF cardinality(n_ids) >= p_limit THEN
      c_ids := n_ids\073
      c_ats := n_ats\073
      c_scores := array_fill(v_suffix[1], ARRAY[cardinality(n_ids)])\073
    ELSE
      FOR e IN 1..v_n LOOP
        EXIT WHEN cardinality(c_ids) >= p_limit AND v_theta > v_suffix[e]\073
        SELECT coalesce(array_agg(s.memory_id), ''{}''), coalesce(array_agg(s.occurred_at), ''{}''),
               coalesce(array_agg(s.score), ''{}'')
          INTO n_ids, n_ats, n_scores
          FROM (SELECT t.memory_id, t.occurred_at,
                       v_sw[e] + coalesce((SELECT sum(q.w) FROM unnest(v_terms[e + 1:], v_sw[e + 1:]) AS q(term, w)
                                            WHERE EXISTS (SELECT 1 FROM memory_term o
                                                           WHERE o.scope_key = p_scope AND o.term = q.term
                                                             AND o.occurred_at = t.occurred_at
                                                             AND o.memory_id = t.memory_id
                                                          OFFSET 0)), 0)::bigint AS score
                  FROM memory_term t
                 WHERE t.scope_key = p_scope AND t.term = v_terms[e] AND t.occurred_at <= v_at
                   AND t.memory_id <> ALL (p_hidden)
                   -- a record in a list walked before is already scored
                   AND NOT EXISTS (SELECT 1 FROM unnest(v_terms[:e - 1]) AS p(term)
                                    WHERE EXISTS (SELECT 1 FROM memory_term o
                                                   WHERE o.scope_key = p_scope AND o.term = p.term
                                                     AND o.occurred_at = t.occurred_at
                                                     AND o.memory_id = t.memory_id
                                                  OFFSET 0))) AS s
         WHERE v_theta IS NULL OR s.score >= v_theta\073
        c_ids := c_ids || n_ids\073
        c_ats := c_ats || n_ats\073
        c_scores := c_scores || n_scores\073
        IF cardinality(c_ids) >= p_limit THEN
          SELECT x INTO v_theta FROM unnest(c_scores) AS x ORDER BY x DESC OFFSET p_limit - 1 LIMIT 1\073
        END IF\073
      END LOOP\073
    END IF\073
  END IF\073

  RETURN QUERY
  SELECT r.id, r.at, r.score, r.tie,
         ARRAY(SELECT EXISTS (SELECT 1 FROM memory_term o
                               WHERE o.scope_key = p_scope AND o.term = q.term
                                 AND o.occurred_at = r.at AND o.memory_id = r.id)
                 FROM unnest(p_terms) WITH ORDINALITY AS q(term, i) ORDER BY q.i),
         ARRAY(SELECT EXISTS (SELECT 1 FROM memory_term o
                               WHERE o.scope_key = p_scope AND o.term = q.term
                                 AND o.occurred_at = r.at AND o.memory_id = r.id)
                 FROM unnest(p_tie_terms) WITH ORDINALITY AS q(term, i) ORDER BY q.i),
         v_w
    FROM (SELECT c.id, c.at, c.score,
                 (SELECT count(*)::int FROM unnest(p_tie_terms) AS f(term)
                   WHERE EXISTS (SELECT 1 FROM memory_term o
                                  WHERE o.scope_key = p_scope AND o.term = f.term
                                    AND o.occurred_at = c.at AND o.memory_id = c.id
                                 OFFSET 0)) AS tie
            FROM unnest(c_ids, c_ats, c_scores) AS c(id, at, score)
           WHERE c.score >= coalesce(v_theta, 0)
           ORDER BY c.score DESC, tie DESC, c.at DESC
           FETCH FIRST p_limit ROWS WITH TIES) AS r\073
END
';

-- What a cue's weights are made of, in one place for every way of ranking: the namespace's record
-- count (memory_scope_count, summed over its shards), each term's list length, and each term's weight
-- from them. No row for a cue without terms. PL/pgSQL so that its query's plan is kept per connection.
--
-- A list is counted up to 1,000 postings (index-only). A longer one is estimated from its event times:
-- 1,000 over the share of the list's time span its newest 1,000 cover (two index descents more), at
-- most the record count, and the record count itself when those 1,000 share one instant. Counting a
-- common word's list took 60-90 ms at a million records (about 1 µs a posting on a loaded machine),
-- more than the rest of a recall. The estimate only moves the weights of common terms, which are small,
-- and is the same for the same namespace, so the ranking stays deterministic and exact for its weights.
CREATE OR REPLACE FUNCTION memory_rank_stats(p_scope bigint, p_terms text[])
  RETURNS TABLE (records bigint, lengths bigint[], weights bigint[])
  LANGUAGE plpgsql STABLE PARALLEL SAFE ROWS 1
  SET jit = off
AS E'
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT n.records, array_agg(e.df ORDER BY q.i), array_agg(memory_term_weight(n.records, e.df) ORDER BY q.i)
    FROM (SELECT coalesce(sum(c.records), 0)::bigint AS records FROM memory_scope_count c
           WHERE c.scope_key = p_scope) AS n
   CROSS JOIN unnest(p_terms) WITH ORDINALITY AS q(term, i)
   CROSS JOIN LATERAL (
     SELECT CASE WHEN w.counted < 1000 THEN w.counted
                 ELSE least(n.records, coalesce(round(1000 * extract(epoch FROM w.newest - o.oldest)
                                                      / nullif(extract(epoch FROM w.newest - w.nth), 0)),
                                                n.records))::bigint
            END AS df
       FROM (SELECT count(*) AS counted, max(p.occurred_at) AS newest, min(p.occurred_at) AS nth
               FROM (SELECT t.occurred_at FROM memory_term t
                      WHERE t.scope_key = p_scope AND t.term = q.term
                      ORDER BY t.occurred_at DESC LIMIT 1000) AS p) AS w
       LEFT JOIN LATERAL (SELECT t.occurred_at AS oldest FROM memory_term t
                           WHERE t.scope_key = p_scope AND t.term = q.term
                           ORDER BY t.occurred_at LIMIT 1) AS o ON w.counted >= 1000) AS e
   GROUP BY n.records\073
END
';

-- A cue term's weight: its inverse document frequency in the namespace, as Okapi BM25 (and Lucene)
-- compute it, ln(1 + (N - df + 0.5) / (df + 0.5)), in millionths. Numeric arithmetic, so the same
-- inputs give the same weight on every server, and integer weights add up exactly in any order. At
-- least 1: a term every record holds still makes a match, as any shared term does.
CREATE OR REPLACE FUNCTION memory_term_weight(p_records bigint, p_df bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN greatest(1, round(1000000 * ln(1 + (greatest(p_records, p_df) - p_df + 0.5) / (p_df + 0.5))))::bigint;
