-- (No semicolons in comments: the pg adapter splits migration scripts on them.)
-- The relay deletes a row once JetStream has acknowledged it instead of stamping it published and
-- purging it a day later. Rows already published are in the stream and go now. It takes rows with
-- the fewest failed attempts first, then the oldest, so a row the bus keeps refusing queues behind
-- the others instead of blocking every pass.
DELETE FROM "outbox_message" WHERE "published_at" IS NOT NULL;
DROP INDEX "outbox_message_pending_idx";

-- AlterTable
ALTER TABLE "outbox_message" DROP COLUMN "published_at";

-- CreateIndex
CREATE INDEX "outbox_message_pending_idx" ON "outbox_message"("attempts", "created_at");
