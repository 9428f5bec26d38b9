-- (No semicolons in comments: the pg adapter splits migration scripts on them.)
-- Recall weighs each cue term by its rarity in the namespace and matches on stems
-- (deterministic-lexical-v2). The stemmed postings share memory_term with the old ones under a scope
-- key of their own, so a namespace written before this release keeps ranking by its old postings
-- while its new ones are built beside them (memory_reindex), and a write's postings never collide.
CREATE FUNCTION memory_scope_key_v2(tenant_id text, namespace text) RETURNS bigint
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN ('x' || left(md5('v2' || chr(31) || tenant_id || chr(31) || namespace), 16))::bit(64)::bigint;

-- A namespace's record count, the N of its terms' weights. Writes add to it in the statement that
-- inserts their records, each connection to a shard of its own, so concurrent writes to one namespace
-- do not queue on one row (recall sums the shards).
CREATE TABLE "memory_scope_count" (
    "scope_key" BIGINT NOT NULL,
    "shard" SMALLINT NOT NULL,
    "records" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "memory_scope_count_pkey" PRIMARY KEY ("scope_key","shard")
);

INSERT INTO "memory_scope_count" ("scope_key", "shard", "records")
SELECT memory_scope_key_v2("tenant_id", "namespace"), 0, count(*)
  FROM "memory_record" GROUP BY "tenant_id", "namespace";

-- Namespaces whose stemmed index is being built: they rank by their old postings until it is
-- complete (status pending or indexing), then by the new, while the old are removed (cleaning).
CREATE TABLE "memory_reindex" (
    "tenant_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "records_total" BIGINT NOT NULL DEFAULT 0,
    "records_done" BIGINT NOT NULL DEFAULT 0,
    -- The re-index walks records by event id, the key of the unique index memory_record already has
    -- (by record id it would need a second index on the hottest table), then removes the old postings
    -- in key order from a cursor of their own, as a namespace deletion removes them.
    "cursor_event_id" TEXT,
    "cursor_term" TEXT,
    "cursor_occurred_at" TIMESTAMPTZ(3),
    "cursor_memory_id" UUID,
    "started_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "memory_reindex_pkey" PRIMARY KEY ("tenant_id","namespace")
);

-- The worker takes the namespace least recently advanced among those with work left.
CREATE INDEX "memory_reindex_open_idx" ON "memory_reindex" ("updated_at")
  WHERE "status" IN ('pending', 'indexing', 'cleaning');

INSERT INTO "memory_reindex" ("tenant_id", "namespace", "records_total")
SELECT "tenant_id", "namespace", count(*) FROM "memory_record" GROUP BY "tenant_id", "namespace";

-- Generated from services/memory/sql/ (node --import tsx services/memory/sql/to-migration.ts).
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
AS E'
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
              WHERE t.scope_key = p_scope AND t.term = p_pair[1] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
                AND (t.occurred_at, t.memory_id) < (p_at, p_id)
              ORDER BY t.occurred_at DESC, t.memory_id DESC)
            UNION ALL
            (SELECT t.occurred_at, t.memory_id FROM memory_term t
              WHERE t.scope_key = p_scope AND t.term = p_pair[2] AND t.occurred_at <= coalesce(p_as_of, ''infinity'')
                AND (t.occurred_at, t.memory_id) < (p_at, p_id)
              ORDER BY t.occurred_at DESC, t.memory_id DESC)) AS u
           GROUP BY u.occurred_at, u.memory_id
          HAVING count(*) = 2
           ORDER BY u.occurred_at DESC, u.memory_id DESC) AS g
   WHERE g.memory_id <> ALL (p_hidden)
   ORDER BY g.occurred_at DESC, g.memory_id DESC
   LIMIT p_limit\073
END
';

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
  v_score bigint\073
  v_wanted int\073
  a_ids uuid[] := ''{}''\073
  a_ats timestamptz[] := ''{}''\073
  a_scores bigint[] := ''{}''\073
  a_ties int[] := ''{}''\073
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

  -- The answer, score by score from the top: of a score''s records, the newest holding every function
  -- word are found first, probing each only until a word it lacks\073 only when fewer than wanted hold
  -- them all are that score''s records counted out. A score shared by thousands of records (a single
  -- common term) costs the newest few of them, not every record times every function word. A few
  -- candidates are counted out at once: one statement costs less than a loop of them.
  IF cardinality(c_ids) <= 4 * p_limit THEN
    SELECT coalesce(array_agg(f.id), ''{}''), coalesce(array_agg(f.at), ''{}''), coalesce(array_agg(f.score), ''{}''),
           coalesce(array_agg(f.tie), ''{}'')
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
             FETCH FIRST p_limit ROWS WITH TIES) AS f\073
  ELSE
    FOR v_score IN SELECT DISTINCT x FROM unnest(c_scores) AS x WHERE x >= coalesce(v_theta, 0) ORDER BY x DESC LOOP
      v_wanted := p_limit - cardinality(a_ids)\073
      EXIT WHEN v_wanted <= 0\073
      SELECT coalesce(array_agg(f.id), ''{}''), coalesce(array_agg(f.at), ''{}'')
        INTO n_ids, n_ats
        FROM (SELECT c.id, c.at FROM unnest(c_ids, c_ats, c_scores) AS c(id, at, score)
               WHERE c.score = v_score
                 AND NOT EXISTS (SELECT 1 FROM unnest(p_tie_terms) AS f(term)
                                  WHERE NOT EXISTS (SELECT 1 FROM memory_term o
                                                     WHERE o.scope_key = p_scope AND o.term = f.term
                                                       AND o.occurred_at = c.at AND o.memory_id = c.id
                                                    OFFSET 0))
               ORDER BY c.at DESC
               FETCH FIRST v_wanted ROWS WITH TIES) AS f\073
      IF cardinality(n_ids) >= v_wanted THEN
        a_ids := a_ids || n_ids\073
        a_ats := a_ats || n_ats\073
        a_scores := a_scores || array_fill(v_score, ARRAY[cardinality(n_ids)])\073
        a_ties := a_ties || array_fill(cardinality(p_tie_terms), ARRAY[cardinality(n_ids)])\073
      ELSE
        SELECT a_ids || coalesce(array_agg(f.id), ''{}''), a_ats || coalesce(array_agg(f.at), ''{}''),
               a_scores || coalesce(array_agg(v_score), ''{}''), a_ties || coalesce(array_agg(f.tie), ''{}'')
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
                 FETCH FIRST v_wanted ROWS WITH TIES) AS f\073
      END IF\073
    END LOOP\073
  END IF\073

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
    FROM unnest(a_ids, a_ats, a_scores, a_ties) AS a(id, at, score, tie)\073
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
