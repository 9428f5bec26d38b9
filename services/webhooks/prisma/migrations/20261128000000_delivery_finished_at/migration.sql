-- AlterTable
ALTER TABLE "webhook_delivery" ADD COLUMN     "finished_at" TIMESTAMPTZ(3);

-- Deliveries finished before this column: their last attempt (or, with none, when they were queued).
UPDATE "webhook_delivery" d
   SET "finished_at" = COALESCE(
         (SELECT max(a."attempted_at") FROM "webhook_attempt" a WHERE a."delivery_id" = d."id"),
         d."created_at")
 WHERE d."status" <> 'pending';

-- CreateIndex
CREATE INDEX "webhook_delivery_finished_at_idx" ON "webhook_delivery"("finished_at");
