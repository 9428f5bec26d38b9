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
AS $$
#variable_conflict use_column
DECLARE
  v_n int := cardinality(p_terms);
  v_at timestamptz := coalesce(p_as_of, 'infinity');
  v_df bigint[] := p_lengths;
  v_w bigint[] := p_weights;
  v_terms text[];
  v_sw bigint[];
  v_suffix bigint[];
  v_from timestamptz;
  v_theta bigint;
  c_ids uuid[] := '{}';
  c_ats timestamptz[] := '{}';
  c_scores bigint[] := '{}';
  n_ids uuid[];
  n_ats timestamptz[];
  n_scores bigint[];
  v_score bigint;
  v_wanted int;
  a_ids uuid[] := '{}';
  a_ats timestamptz[] := '{}';
  a_scores bigint[] := '{}';
  a_ties int[] := '{}';
BEGIN
  IF v_n = 0 THEN
    RETURN;
  END IF;

  IF (SELECT sum(x) FROM unnest(v_df) AS x) < p_short THEN
    SELECT coalesce(array_agg(h.memory_id), '{}'), coalesce(array_agg(h.occurred_at), '{}'),
           coalesce(array_agg(h.score), '{}')
      INTO c_ids, c_ats, c_scores
      FROM (SELECT t.memory_id, t.occurred_at, sum(q.w)::bigint AS score
              FROM unnest(p_terms, v_w) AS q(term, w)
             CROSS JOIN LATERAL (SELECT t.memory_id, t.occurred_at FROM memory_term t
                                  WHERE t.scope_key = p_scope AND t.term = q.term AND t.occurred_at <= v_at
                                 OFFSET 0) AS t
             WHERE t.memory_id <> ALL (p_hidden)
             GROUP BY t.memory_id, t.occurred_at
             ORDER BY score DESC
             FETCH FIRST p_limit ROWS WITH TIES) AS h;
  ELSE
    -- Heaviest first; equal weights in cue order, so the walk is the same on every call.
    SELECT array_agg(u.term ORDER BY u.w DESC, u.i), array_agg(u.w ORDER BY u.w DESC, u.i)
      INTO v_terms, v_sw
      FROM unnest(p_terms, v_w) WITH ORDINALITY AS u(term, w, i);
    SELECT array_agg(s.rest ORDER BY s.e) || 0::bigint INTO v_suffix
      FROM (SELECT e, (SELECT sum(w) FROM unnest(v_sw[e:]) AS w)::bigint AS rest
              FROM generate_subscripts(v_sw, 1) AS e) AS s;

    -- The full match's walk reaches back to its p_full_walk-th newest posting, every posting at that
    -- time included, so a tie on time is never cut.
    SELECT coalesce((SELECT t.occurred_at FROM memory_term t
                      WHERE t.scope_key = p_scope AND t.term = v_terms[1] AND t.occurred_at <= v_at
                      ORDER BY t.occurred_at DESC OFFSET p_full_walk - 1 LIMIT 1), '-infinity')
      INTO v_from;
    SELECT coalesce(array_agg(f.memory_id), '{}'), coalesce(array_agg(f.occurred_at), '{}')
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
             FETCH FIRST p_limit ROWS WITH TIES) AS f;

    IF cardinality(n_ids) >= p_limit THEN
      c_ids := n_ids;
      c_ats := n_ats;
      c_scores := array_fill(v_suffix[1], ARRAY[cardinality(n_ids)]);
    ELSE
      FOR e IN 1..v_n LOOP
        EXIT WHEN cardinality(c_ids) >= p_limit AND v_theta > v_suffix[e];
        SELECT coalesce(array_agg(s.memory_id), '{}'), coalesce(array_agg(s.occurred_at), '{}'),
               coalesce(array_agg(s.score), '{}')
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
         WHERE v_theta IS NULL OR s.score >= v_theta;
        c_ids := c_ids || n_ids;
        c_ats := c_ats || n_ats;
        c_scores := c_scores || n_scores;
        IF cardinality(c_ids) >= p_limit THEN
          SELECT x INTO v_theta FROM unnest(c_scores) AS x ORDER BY x DESC OFFSET p_limit - 1 LIMIT 1;
        END IF;
      END LOOP;
    END IF;
  END IF;

  -- The answer, score by score from the top: of a score's records, the newest holding every function
  -- word are found first, probing each only until a word it lacks; only when fewer than wanted hold
  -- them all are that score's records counted out. A score shared by thousands of records (a single
  -- common term) costs the newest few of them, not every record times every function word. A few
  -- candidates are counted out at once: one statement costs less than a loop of them.
  IF cardinality(c_ids) <= 4 * p_limit THEN
    SELECT coalesce(array_agg(f.id), '{}'), coalesce(array_agg(f.at), '{}'), coalesce(array_agg(f.score), '{}'),
           coalesce(array_agg(f.tie), '{}')
      INTO a_ids, a_ats, a_scores, a_ties
      FROM (SELECT c.id, c.at, c.score,
                   (SELECT count(*)::int FROM unnest(p_tie_terms) AS f(term)
                     WHERE EXISTS (SELECT 1 FROM memory_term o
                                    WHERE o.scope_key = p_scope AND o.term = f.term
                                      AND o.occurred_at = c.at AND o.memory_id = c.id
                                   OFFSET 0)) AS tie
              FROM unnest(c_ids, c_ats, c_scores) AS c(id, at, score)
             WHERE c.score >= coalesce(v_theta, 0)
             ORDER BY c.score DESC, tie DESC, c.at DESC
             FETCH FIRST p_limit ROWS WITH TIES) AS f;
  ELSE
    FOR v_score IN SELECT DISTINCT x FROM unnest(c_scores) AS x WHERE x >= coalesce(v_theta, 0) ORDER BY x DESC LOOP
      v_wanted := p_limit - cardinality(a_ids);
      EXIT WHEN v_wanted <= 0;
      SELECT coalesce(array_agg(f.id), '{}'), coalesce(array_agg(f.at), '{}')
        INTO n_ids, n_ats
        FROM (SELECT c.id, c.at FROM unnest(c_ids, c_ats, c_scores) AS c(id, at, score)
               WHERE c.score = v_score
                 AND NOT EXISTS (SELECT 1 FROM unnest(p_tie_terms) AS f(term)
                                  WHERE NOT EXISTS (SELECT 1 FROM memory_term o
                                                     WHERE o.scope_key = p_scope AND o.term = f.term
                                                       AND o.occurred_at = c.at AND o.memory_id = c.id
                                                    OFFSET 0))
               ORDER BY c.at DESC
               FETCH FIRST v_wanted ROWS WITH TIES) AS f;
      IF cardinality(n_ids) >= v_wanted THEN
        a_ids := a_ids || n_ids;
        a_ats := a_ats || n_ats;
        a_scores := a_scores || array_fill(v_score, ARRAY[cardinality(n_ids)]);
        a_ties := a_ties || array_fill(cardinality(p_tie_terms), ARRAY[cardinality(n_ids)]);
      ELSE
        SELECT a_ids || coalesce(array_agg(f.id), '{}'), a_ats || coalesce(array_agg(f.at), '{}'),
               a_scores || coalesce(array_agg(v_score), '{}'), a_ties || coalesce(array_agg(f.tie), '{}')
          INTO a_ids, a_ats, a_scores, a_ties
          FROM (SELECT c.id, c.at,
                       (SELECT count(*)::int FROM unnest(p_tie_terms) AS f(term)
                         WHERE EXISTS (SELECT 1 FROM memory_term o
                                        WHERE o.scope_key = p_scope AND o.term = f.term
                                          AND o.occurred_at = c.at AND o.memory_id = c.id
                                       OFFSET 0)) AS tie
                  FROM unnest(c_ids, c_ats, c_scores) AS c(id, at, score)
                 WHERE c.score = v_score
                 ORDER BY tie DESC, c.at DESC
                 FETCH FIRST v_wanted ROWS WITH TIES) AS f;
      END IF;
    END LOOP;
  END IF;

  RETURN QUERY
  SELECT a.id, a.at, a.score, a.tie,
         ARRAY(SELECT EXISTS (SELECT 1 FROM memory_term o
                               WHERE o.scope_key = p_scope AND o.term = q.term
                                 AND o.occurred_at = a.at AND o.memory_id = a.id
                              OFFSET 0)
                 FROM unnest(p_terms) WITH ORDINALITY AS q(term, i) ORDER BY q.i),
         ARRAY(SELECT EXISTS (SELECT 1 FROM memory_term o
                               WHERE o.scope_key = p_scope AND o.term = q.term
                                 AND o.occurred_at = a.at AND o.memory_id = a.id
                              OFFSET 0)
                 FROM unnest(p_tie_terms) WITH ORDINALITY AS q(term, i) ORDER BY q.i),
         v_w
    FROM unnest(a_ids, a_ats, a_scores, a_ties) AS a(id, at, score, tie);
END
$$;
