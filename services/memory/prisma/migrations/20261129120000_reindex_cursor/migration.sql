-- (No semicolons in comments: the pg adapter splits migration scripts on them.)
-- The re-index walks a namespace's records by event id, the key of the unique index memory_record
-- already has (tenant_id, namespace, event_id): by record id it would need a second index on the
-- hottest table, or a walk of the primary key across every tenant's records. Its old postings are
-- then removed in key order from a cursor of their own, as a namespace deletion removes them.
ALTER TABLE "memory_reindex" DROP COLUMN "cursor_id",
  ADD COLUMN "cursor_event_id" TEXT,
  ADD COLUMN "cursor_term" TEXT,
  ADD COLUMN "cursor_occurred_at" TIMESTAMPTZ(3),
  ADD COLUMN "cursor_memory_id" UUID;

-- The worker takes the namespace least recently advanced among those with work left.
CREATE INDEX "memory_reindex_open_idx" ON "memory_reindex" ("updated_at")
  WHERE "status" IN ('pending', 'indexing', 'cleaning');
