-- (No semicolons in comments or bodies: the pg adapter splits migration scripts on them. The bodies
-- below are E'' strings, where \073 is the semicolon PL/pgSQL needs.)
-- The walk functions of 20261127000000_recall_by_threshold, the same query, now in PL/pgSQL: a SQL
-- function's query is planned on every call (PostgreSQL 15 keeps no plan for it), about 1 ms a walk
-- under load and several walks a recall. PL/pgSQL keeps its query's plan for the connection (generic,
-- as the memory service's connections ask: session-settings.ts), planned once under the function's
-- SET clauses, which still leave the planner only the merge. use_column: the result columns are named
-- like the table's, and the query means the table's.

CREATE OR REPLACE FUNCTION memory_walk_1(p_scope bigint, p_walk text[], p_probe text[], p_as_of timestamptz,
                              p_hidden uuid[], p_held int, p_matched int, p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, matched int)
  LANGUAGE plpgsql STABLE PARALLEL SAFE
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS E'#variable_conflict use_column
BEGIN
  RETURN QUERY
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
      WHERE t.scope_key = p_scope AND t.term = p_walk[1] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
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
   FETCH FIRST p_limit ROWS WITH TIES\073
END';

CREATE OR REPLACE FUNCTION memory_walk_2(p_scope bigint, p_walk text[], p_probe text[], p_as_of timestamptz,
                              p_hidden uuid[], p_held int, p_matched int, p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, matched int)
  LANGUAGE plpgsql STABLE PARALLEL SAFE
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS E'#variable_conflict use_column
BEGIN
  RETURN QUERY
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
      WHERE t.scope_key = p_scope AND t.term = p_walk[1] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[2] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
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
   FETCH FIRST p_limit ROWS WITH TIES\073
END';

CREATE OR REPLACE FUNCTION memory_walk_3(p_scope bigint, p_walk text[], p_probe text[], p_as_of timestamptz,
                              p_hidden uuid[], p_held int, p_matched int, p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, matched int)
  LANGUAGE plpgsql STABLE PARALLEL SAFE
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS E'#variable_conflict use_column
BEGIN
  RETURN QUERY
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
      WHERE t.scope_key = p_scope AND t.term = p_walk[1] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[2] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[3] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
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
   FETCH FIRST p_limit ROWS WITH TIES\073
END';

CREATE OR REPLACE FUNCTION memory_walk_4(p_scope bigint, p_walk text[], p_probe text[], p_as_of timestamptz,
                              p_hidden uuid[], p_held int, p_matched int, p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, matched int)
  LANGUAGE plpgsql STABLE PARALLEL SAFE
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS E'#variable_conflict use_column
BEGIN
  RETURN QUERY
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
      WHERE t.scope_key = p_scope AND t.term = p_walk[1] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[2] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[3] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[4] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
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
   FETCH FIRST p_limit ROWS WITH TIES\073
END';

CREATE OR REPLACE FUNCTION memory_walk_5(p_scope bigint, p_walk text[], p_probe text[], p_as_of timestamptz,
                              p_hidden uuid[], p_held int, p_matched int, p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, matched int)
  LANGUAGE plpgsql STABLE PARALLEL SAFE
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS E'#variable_conflict use_column
BEGIN
  RETURN QUERY
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
      WHERE t.scope_key = p_scope AND t.term = p_walk[1] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[2] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[3] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[4] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[5] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
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
   FETCH FIRST p_limit ROWS WITH TIES\073
END';

CREATE OR REPLACE FUNCTION memory_walk_6(p_scope bigint, p_walk text[], p_probe text[], p_as_of timestamptz,
                              p_hidden uuid[], p_held int, p_matched int, p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, matched int)
  LANGUAGE plpgsql STABLE PARALLEL SAFE
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS E'#variable_conflict use_column
BEGIN
  RETURN QUERY
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
      WHERE t.scope_key = p_scope AND t.term = p_walk[1] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[2] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[3] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[4] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[5] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[6] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
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
   FETCH FIRST p_limit ROWS WITH TIES\073
END';

CREATE OR REPLACE FUNCTION memory_walk_7(p_scope bigint, p_walk text[], p_probe text[], p_as_of timestamptz,
                              p_hidden uuid[], p_held int, p_matched int, p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, matched int)
  LANGUAGE plpgsql STABLE PARALLEL SAFE
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS E'#variable_conflict use_column
BEGIN
  RETURN QUERY
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
      WHERE t.scope_key = p_scope AND t.term = p_walk[1] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[2] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[3] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[4] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[5] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[6] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[7] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
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
   FETCH FIRST p_limit ROWS WITH TIES\073
END';

CREATE OR REPLACE FUNCTION memory_walk_8(p_scope bigint, p_walk text[], p_probe text[], p_as_of timestamptz,
                              p_hidden uuid[], p_held int, p_matched int, p_limit int)
  RETURNS TABLE (memory_id uuid, occurred_at timestamptz, matched int)
  LANGUAGE plpgsql STABLE PARALLEL SAFE
  SET enable_hashagg = off SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS E'#variable_conflict use_column
BEGIN
  RETURN QUERY
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
      WHERE t.scope_key = p_scope AND t.term = p_walk[1] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[2] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[3] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[4] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[5] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[6] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[7] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
      ORDER BY t.occurred_at DESC, t.memory_id DESC)
    UNION ALL
    (SELECT t.occurred_at, t.memory_id FROM memory_term t
      WHERE t.scope_key = p_scope AND t.term = p_walk[8] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
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
   FETCH FIRST p_limit ROWS WITH TIES\073
END';
