-- DropIndex
DROP INDEX "outbox_message_published_at_created_at_idx";

-- The relay asks only for unpublished rows, oldest first.
CREATE INDEX "outbox_message_pending_idx" ON "outbox_message" ("created_at") WHERE "published_at" IS NULL;
