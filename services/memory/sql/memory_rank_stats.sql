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
AS $$
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
   GROUP BY n.records;
END
$$;
