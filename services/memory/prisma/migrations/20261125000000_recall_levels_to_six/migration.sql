-- (No semicolons in comments or bodies: the pg adapter splits migration scripts on them.)
-- Recall by levels for cues of up to 6 terms (rank-by-levels.ts): the merge for 5 and 6 terms, as
-- 20261124000000_recall_by_levels made it for 1 to 4. At 1M records, cues of 5 terms ranked by the
-- counting statement took 378 ms on average (up to 2 s) and 66 ms by levels, cues of 6 terms 1.6 s
-- and 0.47 s: the counting statement falls back to counting every posting of every term.

CREATE FUNCTION memory_newest_with_all_5(p_scope bigint, p_terms text[], p_as_of timestamptz, p_hidden uuid[], p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz)
  LANGUAGE sql STABLE PARALLEL SAFE
  SET enable_nestloop = off SET enable_hashjoin = off SET enable_hashagg = off SET jit = off
AS $$
  SELECT w.memory_id, w.occurred_at FROM (
  SELECT a1.memory_id, a1.occurred_at FROM memory_term a1
    JOIN memory_term a2 ON a2.scope_key = p_scope AND a2.term = p_terms[2]
     AND a2.occurred_at = a1.occurred_at AND a2.memory_id = a1.memory_id
     AND a2.occurred_at <= coalesce(p_as_of, 'infinity')
    JOIN memory_term a3 ON a3.scope_key = p_scope AND a3.term = p_terms[3]
     AND a3.occurred_at = a1.occurred_at AND a3.memory_id = a1.memory_id
     AND a3.occurred_at <= coalesce(p_as_of, 'infinity')
    JOIN memory_term a4 ON a4.scope_key = p_scope AND a4.term = p_terms[4]
     AND a4.occurred_at = a1.occurred_at AND a4.memory_id = a1.memory_id
     AND a4.occurred_at <= coalesce(p_as_of, 'infinity')
    JOIN memory_term a5 ON a5.scope_key = p_scope AND a5.term = p_terms[5]
     AND a5.occurred_at = a1.occurred_at AND a5.memory_id = a1.memory_id
     AND a5.occurred_at <= coalesce(p_as_of, 'infinity')
   WHERE a1.scope_key = p_scope AND a1.term = p_terms[1]
     AND a1.occurred_at <= coalesce(p_as_of, 'infinity')
     AND a1.memory_id <> ALL (p_hidden)
   ORDER BY a1.occurred_at DESC, a1.memory_id DESC) AS w
   ORDER BY w.occurred_at DESC
   FETCH FIRST p_limit ROWS WITH TIES
$$;

CREATE FUNCTION memory_newest_with_all_6(p_scope bigint, p_terms text[], p_as_of timestamptz, p_hidden uuid[], p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz)
  LANGUAGE sql STABLE PARALLEL SAFE
  SET enable_nestloop = off SET enable_hashjoin = off SET enable_hashagg = off SET jit = off
AS $$
  SELECT w.memory_id, w.occurred_at FROM (
  SELECT a1.memory_id, a1.occurred_at FROM memory_term a1
    JOIN memory_term a2 ON a2.scope_key = p_scope AND a2.term = p_terms[2]
     AND a2.occurred_at = a1.occurred_at AND a2.memory_id = a1.memory_id
     AND a2.occurred_at <= coalesce(p_as_of, 'infinity')
    JOIN memory_term a3 ON a3.scope_key = p_scope AND a3.term = p_terms[3]
     AND a3.occurred_at = a1.occurred_at AND a3.memory_id = a1.memory_id
     AND a3.occurred_at <= coalesce(p_as_of, 'infinity')
    JOIN memory_term a4 ON a4.scope_key = p_scope AND a4.term = p_terms[4]
     AND a4.occurred_at = a1.occurred_at AND a4.memory_id = a1.memory_id
     AND a4.occurred_at <= coalesce(p_as_of, 'infinity')
    JOIN memory_term a5 ON a5.scope_key = p_scope AND a5.term = p_terms[5]
     AND a5.occurred_at = a1.occurred_at AND a5.memory_id = a1.memory_id
     AND a5.occurred_at <= coalesce(p_as_of, 'infinity')
    JOIN memory_term a6 ON a6.scope_key = p_scope AND a6.term = p_terms[6]
     AND a6.occurred_at = a1.occurred_at AND a6.memory_id = a1.memory_id
     AND a6.occurred_at <= coalesce(p_as_of, 'infinity')
   WHERE a1.scope_key = p_scope AND a1.term = p_terms[1]
     AND a1.occurred_at <= coalesce(p_as_of, 'infinity')
     AND a1.memory_id <> ALL (p_hidden)
   ORDER BY a1.occurred_at DESC, a1.memory_id DESC) AS w
   ORDER BY w.occurred_at DESC
   FETCH FIRST p_limit ROWS WITH TIES
$$;
