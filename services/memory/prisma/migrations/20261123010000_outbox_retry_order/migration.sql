-- (No semicolons in comments: the pg adapter splits migration scripts on them.)
-- The relay takes pending rows with the fewest failed attempts first, then the oldest, so a row the bus
-- keeps refusing queues behind the others instead of blocking every pass.
DROP INDEX "outbox_message_pending_idx";
CREATE INDEX "outbox_message_pending_idx" ON "outbox_message" ("attempts", "created_at") WHERE "published_at" IS NULL;
