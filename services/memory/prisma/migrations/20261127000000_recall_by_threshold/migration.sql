-- (No semicolons in comments or bodies: the pg adapter splits migration scripts on them.)
-- Recall by threshold (rank-by-levels.ts): the newest records holding exactly p_matched of a cue's
-- terms, found without reading every posting of its common terms. A record holding at least m of the
-- cue's n terms misses at most n - m, so it holds at least p_held of any s of them: the caller walks
-- the s rarest lists (p_walk) and probes the rest (p_probe) by primary key for the records that hold
-- enough of the walked ones (a record that needs every probed term is dropped at the first it lacks,
-- rarest first). The walked lists are merged newest first (each is ordered by event time
-- and id) and grouped as they stream, so the walk stops once p_limit records (ties on event time
-- included) are found. The planner would rather hash and sort, which reads every posting: the SET
-- clauses leave it only the merge. One function per number of walked lists, up to 8.
-- They replace memory_newest_with_all_1 to 6, which merged every subset of a level's terms and so
-- walked the longest lists whole when no record held the subset.

CREATE FUNCTION memory_walk_1(p_scope bigint, p_walk text[], p_probe text[], p_as_of timestamptz,
                              p_hidden uuid[], p_held int, p_matched int, p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, matched int)
  LANGUAGE sql STABLE PARALLEL SAFE
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS $$
  SELECT c.memory_id, c.occurred_at, c.matched FROM (
    SELECT g.memory_id, g.occurred_at,
           CASE WHEN g.held + cardinality(p_probe) = p_matched THEN p_matched
                ELSE g.held + (SELECT count(*) FROM unnest(p_probe) AS p(term)
                                WHERE EXISTS (SELECT 1 FROM memory_term o
                                               WHERE o.scope_key = p_scope AND o.term = p.term
                                                 AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                                              OFFSET 0))::int
           END AS matched
      FROM (SELECT u.occurred_at, u.memory_id, count(*)::int AS held FROM (
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[1] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)) AS u
             GROUP BY u.occurred_at, u.memory_id
            HAVING count(*) >= p_held
             ORDER BY u.occurred_at DESC, u.memory_id DESC) AS g
     WHERE g.memory_id <> ALL (p_hidden)
       AND g.held + cardinality(p_probe) >= p_matched
       AND (g.held + cardinality(p_probe) > p_matched
            OR NOT EXISTS (SELECT 1 FROM unnest(p_probe) AS p(term)
                            WHERE NOT EXISTS (SELECT 1 FROM memory_term o
                                               WHERE o.scope_key = p_scope AND o.term = p.term
                                                 AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                                              OFFSET 0)))) AS c
   WHERE c.matched = p_matched
   ORDER BY c.occurred_at DESC
   FETCH FIRST p_limit ROWS WITH TIES
$$;

CREATE FUNCTION memory_walk_2(p_scope bigint, p_walk text[], p_probe text[], p_as_of timestamptz,
                              p_hidden uuid[], p_held int, p_matched int, p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, matched int)
  LANGUAGE sql STABLE PARALLEL SAFE
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS $$
  SELECT c.memory_id, c.occurred_at, c.matched FROM (
    SELECT g.memory_id, g.occurred_at,
           CASE WHEN g.held + cardinality(p_probe) = p_matched THEN p_matched
                ELSE g.held + (SELECT count(*) FROM unnest(p_probe) AS p(term)
                                WHERE EXISTS (SELECT 1 FROM memory_term o
                                               WHERE o.scope_key = p_scope AND o.term = p.term
                                                 AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                                              OFFSET 0))::int
           END AS matched
      FROM (SELECT u.occurred_at, u.memory_id, count(*)::int AS held FROM (
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[1] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[2] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)) AS u
             GROUP BY u.occurred_at, u.memory_id
            HAVING count(*) >= p_held
             ORDER BY u.occurred_at DESC, u.memory_id DESC) AS g
     WHERE g.memory_id <> ALL (p_hidden)
       AND g.held + cardinality(p_probe) >= p_matched
       AND (g.held + cardinality(p_probe) > p_matched
            OR NOT EXISTS (SELECT 1 FROM unnest(p_probe) AS p(term)
                            WHERE NOT EXISTS (SELECT 1 FROM memory_term o
                                               WHERE o.scope_key = p_scope AND o.term = p.term
                                                 AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                                              OFFSET 0)))) AS c
   WHERE c.matched = p_matched
   ORDER BY c.occurred_at DESC
   FETCH FIRST p_limit ROWS WITH TIES
$$;

CREATE FUNCTION memory_walk_3(p_scope bigint, p_walk text[], p_probe text[], p_as_of timestamptz,
                              p_hidden uuid[], p_held int, p_matched int, p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, matched int)
  LANGUAGE sql STABLE PARALLEL SAFE
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS $$
  SELECT c.memory_id, c.occurred_at, c.matched FROM (
    SELECT g.memory_id, g.occurred_at,
           CASE WHEN g.held + cardinality(p_probe) = p_matched THEN p_matched
                ELSE g.held + (SELECT count(*) FROM unnest(p_probe) AS p(term)
                                WHERE EXISTS (SELECT 1 FROM memory_term o
                                               WHERE o.scope_key = p_scope AND o.term = p.term
                                                 AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                                              OFFSET 0))::int
           END AS matched
      FROM (SELECT u.occurred_at, u.memory_id, count(*)::int AS held FROM (
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[1] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[2] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[3] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)) AS u
             GROUP BY u.occurred_at, u.memory_id
            HAVING count(*) >= p_held
             ORDER BY u.occurred_at DESC, u.memory_id DESC) AS g
     WHERE g.memory_id <> ALL (p_hidden)
       AND g.held + cardinality(p_probe) >= p_matched
       AND (g.held + cardinality(p_probe) > p_matched
            OR NOT EXISTS (SELECT 1 FROM unnest(p_probe) AS p(term)
                            WHERE NOT EXISTS (SELECT 1 FROM memory_term o
                                               WHERE o.scope_key = p_scope AND o.term = p.term
                                                 AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                                              OFFSET 0)))) AS c
   WHERE c.matched = p_matched
   ORDER BY c.occurred_at DESC
   FETCH FIRST p_limit ROWS WITH TIES
$$;

CREATE FUNCTION memory_walk_4(p_scope bigint, p_walk text[], p_probe text[], p_as_of timestamptz,
                              p_hidden uuid[], p_held int, p_matched int, p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, matched int)
  LANGUAGE sql STABLE PARALLEL SAFE
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS $$
  SELECT c.memory_id, c.occurred_at, c.matched FROM (
    SELECT g.memory_id, g.occurred_at,
           CASE WHEN g.held + cardinality(p_probe) = p_matched THEN p_matched
                ELSE g.held + (SELECT count(*) FROM unnest(p_probe) AS p(term)
                                WHERE EXISTS (SELECT 1 FROM memory_term o
                                               WHERE o.scope_key = p_scope AND o.term = p.term
                                                 AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                                              OFFSET 0))::int
           END AS matched
      FROM (SELECT u.occurred_at, u.memory_id, count(*)::int AS held FROM (
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[1] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[2] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[3] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[4] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)) AS u
             GROUP BY u.occurred_at, u.memory_id
            HAVING count(*) >= p_held
             ORDER BY u.occurred_at DESC, u.memory_id DESC) AS g
     WHERE g.memory_id <> ALL (p_hidden)
       AND g.held + cardinality(p_probe) >= p_matched
       AND (g.held + cardinality(p_probe) > p_matched
            OR NOT EXISTS (SELECT 1 FROM unnest(p_probe) AS p(term)
                            WHERE NOT EXISTS (SELECT 1 FROM memory_term o
                                               WHERE o.scope_key = p_scope AND o.term = p.term
                                                 AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                                              OFFSET 0)))) AS c
   WHERE c.matched = p_matched
   ORDER BY c.occurred_at DESC
   FETCH FIRST p_limit ROWS WITH TIES
$$;

CREATE FUNCTION memory_walk_5(p_scope bigint, p_walk text[], p_probe text[], p_as_of timestamptz,
                              p_hidden uuid[], p_held int, p_matched int, p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, matched int)
  LANGUAGE sql STABLE PARALLEL SAFE
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS $$
  SELECT c.memory_id, c.occurred_at, c.matched FROM (
    SELECT g.memory_id, g.occurred_at,
           CASE WHEN g.held + cardinality(p_probe) = p_matched THEN p_matched
                ELSE g.held + (SELECT count(*) FROM unnest(p_probe) AS p(term)
                                WHERE EXISTS (SELECT 1 FROM memory_term o
                                               WHERE o.scope_key = p_scope AND o.term = p.term
                                                 AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                                              OFFSET 0))::int
           END AS matched
      FROM (SELECT u.occurred_at, u.memory_id, count(*)::int AS held FROM (
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[1] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[2] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[3] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[4] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[5] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)) AS u
             GROUP BY u.occurred_at, u.memory_id
            HAVING count(*) >= p_held
             ORDER BY u.occurred_at DESC, u.memory_id DESC) AS g
     WHERE g.memory_id <> ALL (p_hidden)
       AND g.held + cardinality(p_probe) >= p_matched
       AND (g.held + cardinality(p_probe) > p_matched
            OR NOT EXISTS (SELECT 1 FROM unnest(p_probe) AS p(term)
                            WHERE NOT EXISTS (SELECT 1 FROM memory_term o
                                               WHERE o.scope_key = p_scope AND o.term = p.term
                                                 AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                                              OFFSET 0)))) AS c
   WHERE c.matched = p_matched
   ORDER BY c.occurred_at DESC
   FETCH FIRST p_limit ROWS WITH TIES
$$;

CREATE FUNCTION memory_walk_6(p_scope bigint, p_walk text[], p_probe text[], p_as_of timestamptz,
                              p_hidden uuid[], p_held int, p_matched int, p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, matched int)
  LANGUAGE sql STABLE PARALLEL SAFE
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS $$
  SELECT c.memory_id, c.occurred_at, c.matched FROM (
    SELECT g.memory_id, g.occurred_at,
           CASE WHEN g.held + cardinality(p_probe) = p_matched THEN p_matched
                ELSE g.held + (SELECT count(*) FROM unnest(p_probe) AS p(term)
                                WHERE EXISTS (SELECT 1 FROM memory_term o
                                               WHERE o.scope_key = p_scope AND o.term = p.term
                                                 AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                                              OFFSET 0))::int
           END AS matched
      FROM (SELECT u.occurred_at, u.memory_id, count(*)::int AS held FROM (
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[1] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[2] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[3] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[4] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[5] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[6] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)) AS u
             GROUP BY u.occurred_at, u.memory_id
            HAVING count(*) >= p_held
             ORDER BY u.occurred_at DESC, u.memory_id DESC) AS g
     WHERE g.memory_id <> ALL (p_hidden)
       AND g.held + cardinality(p_probe) >= p_matched
       AND (g.held + cardinality(p_probe) > p_matched
            OR NOT EXISTS (SELECT 1 FROM unnest(p_probe) AS p(term)
                            WHERE NOT EXISTS (SELECT 1 FROM memory_term o
                                               WHERE o.scope_key = p_scope AND o.term = p.term
                                                 AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                                              OFFSET 0)))) AS c
   WHERE c.matched = p_matched
   ORDER BY c.occurred_at DESC
   FETCH FIRST p_limit ROWS WITH TIES
$$;

CREATE FUNCTION memory_walk_7(p_scope bigint, p_walk text[], p_probe text[], p_as_of timestamptz,
                              p_hidden uuid[], p_held int, p_matched int, p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, matched int)
  LANGUAGE sql STABLE PARALLEL SAFE
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS $$
  SELECT c.memory_id, c.occurred_at, c.matched FROM (
    SELECT g.memory_id, g.occurred_at,
           CASE WHEN g.held + cardinality(p_probe) = p_matched THEN p_matched
                ELSE g.held + (SELECT count(*) FROM unnest(p_probe) AS p(term)
                                WHERE EXISTS (SELECT 1 FROM memory_term o
                                               WHERE o.scope_key = p_scope AND o.term = p.term
                                                 AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                                              OFFSET 0))::int
           END AS matched
      FROM (SELECT u.occurred_at, u.memory_id, count(*)::int AS held FROM (
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[1] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[2] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[3] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[4] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[5] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[6] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[7] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)) AS u
             GROUP BY u.occurred_at, u.memory_id
            HAVING count(*) >= p_held
             ORDER BY u.occurred_at DESC, u.memory_id DESC) AS g
     WHERE g.memory_id <> ALL (p_hidden)
       AND g.held + cardinality(p_probe) >= p_matched
       AND (g.held + cardinality(p_probe) > p_matched
            OR NOT EXISTS (SELECT 1 FROM unnest(p_probe) AS p(term)
                            WHERE NOT EXISTS (SELECT 1 FROM memory_term o
                                               WHERE o.scope_key = p_scope AND o.term = p.term
                                                 AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                                              OFFSET 0)))) AS c
   WHERE c.matched = p_matched
   ORDER BY c.occurred_at DESC
   FETCH FIRST p_limit ROWS WITH TIES
$$;

CREATE FUNCTION memory_walk_8(p_scope bigint, p_walk text[], p_probe text[], p_as_of timestamptz,
                              p_hidden uuid[], p_held int, p_matched int, p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, matched int)
  LANGUAGE sql STABLE PARALLEL SAFE
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS $$
  SELECT c.memory_id, c.occurred_at, c.matched FROM (
    SELECT g.memory_id, g.occurred_at,
           CASE WHEN g.held + cardinality(p_probe) = p_matched THEN p_matched
                ELSE g.held + (SELECT count(*) FROM unnest(p_probe) AS p(term)
                                WHERE EXISTS (SELECT 1 FROM memory_term o
                                               WHERE o.scope_key = p_scope AND o.term = p.term
                                                 AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                                              OFFSET 0))::int
           END AS matched
      FROM (SELECT u.occurred_at, u.memory_id, count(*)::int AS held FROM (
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[1] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[2] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[3] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[4] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[5] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[6] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[7] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[8] AND t.occurred_at <= coalesce(p_as_of, 'infinity')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)) AS u
             GROUP BY u.occurred_at, u.memory_id
            HAVING count(*) >= p_held
             ORDER BY u.occurred_at DESC, u.memory_id DESC) AS g
     WHERE g.memory_id <> ALL (p_hidden)
       AND g.held + cardinality(p_probe) >= p_matched
       AND (g.held + cardinality(p_probe) > p_matched
            OR NOT EXISTS (SELECT 1 FROM unnest(p_probe) AS p(term)
                            WHERE NOT EXISTS (SELECT 1 FROM memory_term o
                                               WHERE o.scope_key = p_scope AND o.term = p.term
                                                 AND o.occurred_at = g.occurred_at AND o.memory_id = g.memory_id
                                              OFFSET 0)))) AS c
   WHERE c.matched = p_matched
   ORDER BY c.occurred_at DESC
   FETCH FIRST p_limit ROWS WITH TIES
$$;

DROP FUNCTION memory_newest_with_all_1(bigint, text[], timestamptz, uuid[], int);
DROP FUNCTION memory_newest_with_all_2(bigint, text[], timestamptz, uuid[], int);
DROP FUNCTION memory_newest_with_all_3(bigint, text[], timestamptz, uuid[], int);
DROP FUNCTION memory_newest_with_all_4(bigint, text[], timestamptz, uuid[], int);
DROP FUNCTION memory_newest_with_all_5(bigint, text[], timestamptz, uuid[], int);
DROP FUNCTION memory_newest_with_all_6(bigint, text[], timestamptz, uuid[], int);
