-- The ranking by term-set classes (rank-by-classes.ts) reads a class of two or more terms here: the
-- records holding both of two of its terms (p_pair), newest first after the cursor (p_at, p_id), each
-- with the bit masks of the cue terms and function words it holds. The two lists are merged in event
-- order and only the records in both are probed, where reading one list probes every posting of it: at
-- a million records three common words share one record in thousands of postings. PL/pgSQL so that the
-- merge's plan is kept, with the settings that keep it a merge (no sort, no hash, no bitmap).
CREATE OR REPLACE FUNCTION memory_pair_walk(p_scope bigint, p_pair text[], p_terms text[], p_tie_terms text[],
                                            p_as_of timestamptz, p_hidden uuid[], p_at timestamptz, p_id uuid,
                                            p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, mask int, tie_mask int)
  LANGUAGE plpgsql STABLE PARALLEL SAFE ROWS 100
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT g.memory_id, g.occurred_at,
         (SELECT coalesce(sum(1 << (q.i::int - 1)), 0)::int FROM unnest(p_terms) WITH ORDINALITY AS q(term, i)
           WHERE q.term = ANY (p_pair)
              OR EXISTS (SELECT 1 FROM memory_term o
                          WHERE o.scope_key = p_scope AND o.term = q.term
                            AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                         OFFSET 0)),
         (SELECT coalesce(sum(1 << (q.i::int - 1)), 0)::int FROM unnest(p_tie_terms) WITH ORDINALITY AS q(term, i)
           WHERE EXISTS (SELECT 1 FROM memory_term o
                          WHERE o.scope_key = p_scope AND o.term = q.term
                            AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                         OFFSET 0))
    FROM (SELECT u.occurred_at, u.memory_id FROM (
            (SELECT t.occurred_at, t.memory_id FROM memory_term t
              WHERE t.scope_key = p_scope AND t.term = p_pair[1] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
                AND (t.occurred_at, t.memory_id) < (p_at, p_id)
              ORDER BY t.occurred_at DESC, t.memory_id DESC)
            UNION ALL
            (SELECT t.occurred_at, t.memory_id FROM memory_term t
              WHERE t.scope_key = p_scope AND t.term = p_pair[2] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
                AND (t.occurred_at, t.memory_id) < (p_at, p_id)
              ORDER BY t.occurred_at DESC, t.memory_id DESC)) AS u
           GROUP BY u.occurred_at, u.memory_id
          HAVING count(*) = 2
           ORDER BY u.occurred_at DESC, u.memory_id DESC) AS g
   WHERE g.memory_id <> ALL (p_hidden)
   ORDER BY g.occurred_at DESC, g.memory_id DESC
   LIMIT p_limit;
END
$$;
