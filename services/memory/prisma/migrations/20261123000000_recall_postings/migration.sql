-- (No semicolons in comments: the pg adapter splits migration scripts on them.)
-- Recall reads postings instead of records: one row per distinct term of a retained record, keyed so
-- that a cue's candidates are counted by an index-only scan and only the top k records are fetched.

-- A namespace's postings share one key: a 64-bit digest of (tenant, namespace). md5 because its
-- output never changes across PostgreSQL versions, and recall re-checks tenant and namespace on the
-- records it returns, so even a digest collision could never show one scope's text to another.
CREATE FUNCTION memory_scope_key(tenant_id text, namespace text) RETURNS bigint
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN ('x' || left(md5(tenant_id || chr(31) || namespace), 16))::bit(64)::bigint;

-- CreateTable
CREATE TABLE "memory_term" (
    "scope_key" BIGINT NOT NULL,
    "term" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "memory_id" UUID NOT NULL,

    CONSTRAINT "memory_term_pkey" PRIMARY KEY ("scope_key","term","occurred_at","memory_id")
);

-- Existing records get their postings before the term array they come from is dropped.
INSERT INTO "memory_term" ("scope_key", "term", "occurred_at", "memory_id")
SELECT DISTINCT memory_scope_key(r."tenant_id", r."namespace"), t.term, r."occurred_at", r."id"
  FROM "memory_record" r CROSS JOIN LATERAL unnest(r."terms") AS t(term);

DROP INDEX "memory_record_scope_terms_gin";
DROP EXTENSION IF EXISTS btree_gin;
ALTER TABLE "memory_record" DROP COLUMN "terms";

-- Recall hides superseded records. There are few, so a partial index finds them without a scan.
CREATE INDEX "memory_record_superseded_idx" ON "memory_record" ("tenant_id", "namespace") WHERE "superseded_at" IS NOT NULL;
